import { type Command, integer, print, required, UsageError } from '../cli.js';

const COLUMNS = ['id', 'created_at', 'category', 'to', 'subject', 'status', 'attempts', 'last_answer'];
const STATUSES = ['pending', 'sent', 'failed'];

/**
 * The mail outbox from the command line (contract 26.3): what was sent, what waits, what failed and why. Without
 * SMTP_URL mails are kept here (pending) and `mail show` is how a developer reads them, links included.
 */
export const mailCommands: Command[] = [
  {
    name: 'mail list',
    summary: 'the mail outbox, newest first (pending, sent, failed with the server’s answer)',
    usage: '[--status pending|sent|failed] [--offset N] [--per-page N] [--json]',
    options: { status: { type: 'string' }, offset: { type: 'string' }, 'per-page': { type: 'string' } },
    run: async (values, ctx) => {
      const status = values.status;
      if (status !== undefined && !STATUSES.includes(String(status))) throw new UsageError(`--status must be one of ${STATUSES.join(', ')}`);
      const { mail } = await ctx.services();
      const page = await mail.listMails(ctx.operator, {
        offset: integer(values, 'offset', { min: 0, max: 1_000_000 }) ?? 0,
        per_page: integer(values, 'per-page', { min: 1, max: 100 }) ?? 20,
        ...(status ? { status: status as 'pending' | 'sent' | 'failed' } : {}),
      });
      if (values.json) print(ctx, values, page);
      else {
        print(ctx, values, page.results, COLUMNS);
        ctx.out(`(${page.results.length} of ${page.total})${mail.sends ? '' : ' SMTP_URL is not set: mails are kept here, nothing is sent.'}`);
      }
    },
  },
  {
    name: 'mail show',
    summary: 'one mail: its headers, fate and text (links included: the operator reads what the recipient would)',
    usage: 'ID [--html] [--json]',
    options: { id: { type: 'string' }, html: { type: 'boolean' } },
    positional: 'id',
    run: async (values, ctx) => {
      const { mail } = await ctx.services();
      const m = await mail.showMail(ctx.operator, required(values, 'id'));
      if (values.json) {
        print(ctx, values, m);
        return;
      }
      const line = (name: string, value: unknown) => ctx.out(`${name}: ${value instanceof Date ? value.toISOString() : (value ?? '-')}`);
      line('Id', m.id);
      line('Message-ID', m.message_id);
      line('Category', m.category);
      line('To', m.to_address);
      line('Subject', m.subject);
      for (const [name, value] of Object.entries(m.headers)) line(name, value);
      line('Status', m.status);
      line('Attempts', m.attempts);
      line('Next attempt', m.status === 'pending' ? m.next_attempt_at : null);
      line('Answer', m.last_answer);
      line('Created', m.created_at);
      line('Sent', m.sent_at);
      line('Failed', m.failed_at);
      ctx.out('');
      ctx.out(values.html ? m.html_body : m.text_body);
    },
  },
  {
    name: 'mail test',
    summary: 'send a test mail now and print the SMTP server’s answer',
    usage: '--to ADDRESS [--json]',
    options: { to: { type: 'string' } },
    run: async (values, ctx) => {
      const { mail } = await ctx.services();
      const result = await mail.sendTest(ctx.operator, required(values, 'to'));
      if (values.json) print(ctx, values, { id: result.id, status: result.mail.status, answer: result.mail.last_answer });
      else if (!result.sent) ctx.out(`SMTP_URL is not set: mail ${result.id} is kept in the database (pending); nothing was sent.`);
      else ctx.out(`mail ${result.id}: ${result.mail.status}; the server answered: ${result.mail.last_answer ?? '-'}`);
      return result.mail.status === 'sent' ? 0 : 1;
    },
  },
];
