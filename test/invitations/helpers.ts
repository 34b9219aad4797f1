import { sql } from 'kysely';
import { expect } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';

export interface QueuedMail {
  id: string;
  category: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string;
  user_id: string | null;
  workspace_id: string | null;
}

/** The mails queued in the mail outbox for an address, oldest first. */
export async function mailsTo(database: DatabaseHandle, to: string): Promise<QueuedMail[]> {
  const { rows } = await sql<QueuedMail>`
    SELECT id, category, to_address, subject, text_body, html_body, user_id, workspace_id
    FROM mail_outbox WHERE to_address = ${to} ORDER BY id`.execute(database.db);
  return rows;
}

/** The token of the link in a mail (`/app/invitations/{token}` or `/app/password-reset/{token}`), in both parts. */
export function linkToken(mail: QueuedMail, kind: 'invitations' | 'password-reset'): string {
  const pattern = new RegExp(`/app/${kind}/([A-Za-z0-9_-]{43})`);
  const text = pattern.exec(mail.text_body);
  expect(text, mail.text_body).not.toBeNull();
  expect(mail.html_body).toContain(`/app/${kind}/${text![1]}`);
  return text![1]!;
}

/** The one mail queued for an address since `before` mails. */
export async function lastMail(database: DatabaseHandle, to: string, before: number): Promise<QueuedMail> {
  const mails = await mailsTo(database, to);
  expect(mails.length).toBe(before + 1);
  return mails.at(-1)!;
}
