import type { Tx } from '../../db/database.js';
import type { Clock } from '../../kernel/clock.js';
import { newId } from '../../kernel/ids.js';
import type { MailInput, MailQueue } from '../../kernel/notices.js';
import type { MailRepository } from './mail.repository.js';
import { messageIdDomain } from './mail.rules.js';

export interface MailQueueDeps {
  repo: Pick<MailRepository, 'insertMails'>;
  clock: Clock;
  /** MAIL_FROM: its domain names the Message-IDs. */
  from: string;
  /** Called when mail was queued (the worker wakes soon after, once the transaction has committed). */
  onQueued?: () => void;
}

export type MailOutbox = MailQueue<Tx> & {
  /** Queues several mails in one statement; answers their ids in order. */
  enqueueMany(tx: Tx, mails: MailInput[]): Promise<string[]>;
};

/**
 * The mail outbox (contract 26.3): a mail is recorded in the transaction of the change that causes it, with its
 * Message-ID made now and kept for every attempt, and sent by the worker after the commit. A rolled-back change sends
 * nothing; an SMTP outage delays the mail and fails no request.
 */
export function createMailQueue({ repo, clock, from, onQueued }: MailQueueDeps): MailOutbox {
  const domain = messageIdDomain(from);
  async function enqueueMany(tx: Tx, mails: MailInput[]): Promise<string[]> {
    if (!mails.length) return [];
    const now = clock.now();
    const rows = mails.map((mail) => {
      const id = newId();
      return {
        id,
        message_id: `<${id}@${domain}>`,
        category: mail.category,
        to_address: mail.to,
        subject: mail.subject.replace(/[\r\n]+/g, ' '),
        text_body: mail.text,
        html_body: mail.html,
        headers: JSON.stringify(mail.headers ?? {}),
        user_id: mail.userId ?? null,
        workspace_id: mail.workspaceId ?? null,
        status: 'pending' as const,
        next_attempt_at: now,
        created_at: now,
        updated_at: now,
      };
    });
    await repo.insertMails(tx, rows);
    onQueued?.();
    return rows.map((r) => r.id);
  }
  return {
    enqueueMany,
    async enqueue(tx, mail) {
      return (await enqueueMany(tx, [mail]))[0]!;
    },
  };
}
