import nodemailer from 'nodemailer';
import type { MailConfig } from '../../config/config.js';
import type { ClaimedMail } from './mail.repository.js';
import { classifySmtpError } from './mail.rules.js';

/** What one attempt came to: the server's answer, and whether a failure is for good. */
export type SendResult = { ok: true; answer: string } | { ok: false; permanent: boolean; answer: string };

export interface MailTransport {
  send(mail: ClaimedMail): Promise<SendResult>;
  close(): void;
}

/** Connections the pool keeps open to the SMTP server; also how many mails the worker sends at once. */
export const SMTP_CONNECTIONS = 10;

/** nodemailer's options for SMTP_URL: host, port, TLS from the first byte with smtps://, sign-in from the user info. */
export function smtpOptions(url: string, timeoutMs: number) {
  const u = new URL(url);
  const secure = u.protocol === 'smtps:';
  return {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    ...(u.username ? { auth: { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } } : {}),
    pool: true as const,
    maxConnections: SMTP_CONNECTIONS,
    maxMessages: Number.POSITIVE_INFINITY,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    logger: false,
  };
}

/** Sends through nodemailer's pooled SMTP transport; never throws (a failure is an answer). */
export function createSmtpTransport(config: Pick<MailConfig, 'smtpUrl' | 'from' | 'timeoutMs'>): MailTransport | null {
  if (!config.smtpUrl) return null;
  const transport = nodemailer.createTransport(smtpOptions(config.smtpUrl, config.timeoutMs));
  return {
    async send(mail) {
      try {
        const info = await transport.sendMail({
          from: config.from,
          to: mail.to_address,
          subject: mail.subject,
          text: mail.text_body,
          html: mail.html_body,
          messageId: mail.message_id,
          headers: mail.headers,
        });
        return { ok: true, answer: String(info.response ?? '250 OK').slice(0, 1000) };
      } catch (err) {
        return { ok: false, ...classifySmtpError(err) };
      }
    },
    close: () => transport.close(),
  };
}
