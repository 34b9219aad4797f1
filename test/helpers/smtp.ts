import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** A message the test server accepted, parsed by mailparser. */
export interface ReceivedMail {
  /** The envelope (MAIL FROM, RCPT TO). */
  envelope: { from: string; to: string[] };
  messageId: string | undefined;
  subject: string | undefined;
  from: string | undefined;
  to: string | undefined;
  text: string | undefined;
  /** false when the message has no HTML part. */
  html: string | false;
  /** Header names in lower case; values as mailparser gives them (strings for most). */
  headers: Map<string, unknown>;
  /** The raw message. */
  raw: string;
  parsed: ParsedMail;
}

export interface SmtpFailure {
  /** The SMTP reply code (4xx passing, 5xx permanent). */
  code: number;
  message?: string;
  /** How many messages to refuse (default: every one until `succeed()`). */
  times?: number;
}

export interface TestSmtpServer {
  port: number;
  /** `smtp://user:pass@127.0.0.1:port` (any user and password are accepted). */
  url: string;
  /** Accepted messages, in order. */
  messages: ReceivedMail[];
  /** Refuses the next messages (after DATA) with this reply. */
  fail(failure: SmtpFailure): void;
  /** Accepts messages again (ends `fail` and `slow`). */
  succeed(): void;
  /** Waits `ms` before answering each message's DATA. */
  slow(ms: number): void;
  /** Stops listening and drops every connection: connections are refused until `up()`. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  /** Resolves once `count` messages in all were accepted (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  /** Messages refused so far. */
  refused: number;
  close(): Promise<void>;
}

export interface SmtpServerOptions {
  /** Parse every message with mailparser (default true; the bench turns it off and counts Message-IDs itself). */
  parse?: boolean;
}

/**
 * A real SMTP server for tests (npm `smtp-server`) on a free port of 127.0.0.1, no TLS, any sign-in accepted. It
 * collects what it accepts (parsed with `mailparser`), and can be told to answer 4xx or 5xx, to be slow, or to be down.
 */
export async function startSmtpServer(options: SmtpServerOptions = {}): Promise<TestSmtpServer> {
  const parse = options.parse ?? true;
  const messages: ReceivedMail[] = [];
  let failure: (SmtpFailure & { left: number }) | null = null;
  let delayMs = 0;
  let server: SMTPServer | null = null;
  let port = 0;
  const waiters = new Set<() => void>();

  const serverOptions: SMTPServerOptions = {
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    size: 25 * 1024 * 1024,
    closeTimeout: 50,
    onAuth(_auth, _session, callback) {
      callback(null, { user: 'test' });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        void (async () => {
          if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
          if (failure && failure.left > 0) {
            failure.left -= 1;
            const { code, message } = failure;
            if (failure.left === 0) failure = null;
            api.refused += 1;
            const err = new Error(message ?? (code >= 500 ? 'Mailbox unavailable' : 'Try again later')) as Error & { responseCode: number };
            err.responseCode = code;
            callback(err);
            return;
          }
          const raw = Buffer.concat(chunks).toString('utf8');
          const envelope = {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
          };
          if (parse) {
            const parsed = await simpleParser(raw);
            messages.push({
              envelope,
              messageId: parsed.messageId,
              subject: parsed.subject,
              from: parsed.from?.text,
              to: Array.isArray(parsed.to) ? parsed.to.map((t) => t.text).join(', ') : parsed.to?.text,
              text: parsed.text,
              html: parsed.html ?? false,
              headers: parsed.headers as Map<string, unknown>,
              raw,
              parsed,
            });
          } else {
            const messageId = /^message-id:\s*(.+)$/im.exec(raw.slice(0, raw.indexOf('\r\n\r\n') >>> 0))?.[1]?.trim();
            messages.push({
              envelope,
              messageId,
              subject: undefined,
              from: undefined,
              to: undefined,
              text: undefined,
              html: false,
              headers: new Map(),
              raw: '',
              parsed: undefined as unknown as ParsedMail,
            });
          }
          callback();
          waiters.forEach((w) => w());
        })();
      });
    },
  };

  const listen = async (at: number) => {
    const s = new SMTPServer(serverOptions);
    s.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      s.server.once('error', reject);
      s.listen(at, '127.0.0.1', () => resolve());
    });
    server = s;
    const address = s.server.address();
    port = typeof address === 'object' && address ? address.port : at;
  };
  const stop = async () => {
    const s = server;
    server = null;
    if (!s) return;
    for (const connection of (s as unknown as { connections: Set<{ close(): void }> }).connections) connection.close();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  };

  await listen(0);

  const api: TestSmtpServer = {
    port,
    url: `smtp://user:pass@127.0.0.1:${port}`,
    messages,
    refused: 0,
    fail(f) {
      failure = { ...f, left: f.times ?? Number.POSITIVE_INFINITY };
    },
    succeed() {
      failure = null;
      delayMs = 0;
    },
    slow(ms) {
      delayMs = ms;
    },
    down: stop,
    up: () => listen(port),
    waitFor(count, timeoutMs = 10_000) {
      if (messages.length >= count) return Promise.resolve(messages);
      return new Promise((resolve, reject) => {
        const check = () => {
          if (messages.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(messages);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the SMTP server received ${messages.length} of ${count} messages within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
      });
    },
    close: stop,
  };
  return api;
}
