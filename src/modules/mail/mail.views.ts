import { NOTIFICATION_KINDS, type NotificationKind } from '../../kernel/notices.js';
import type { MailRow, SettingsRow } from './mail.repository.js';

/** The settings as the API shows them: every kind of NOTIFICATION_KINDS with whether it is e-mailed. */
export function settingsView(s: SettingsRow) {
  return {
    email: s.email,
    digest_hour: s.digest_hour,
    kinds: Object.fromEntries(NOTIFICATION_KINDS.map((k) => [k, !s.kinds_off.includes(k)])) as Record<NotificationKind, boolean>,
  };
}

/** A mail as the instance admin sees it: who, what, its fate; never its bodies (invitation and reset links are secrets). */
export function mailView(m: MailRow) {
  return {
    id: m.id,
    message_id: m.message_id,
    category: m.category,
    to: m.to_address,
    subject: m.subject,
    status: m.status,
    attempts: m.attempts,
    next_attempt_at: m.status === 'pending' ? (m.next_attempt_at?.toISOString() ?? null) : null,
    last_answer: m.last_answer,
    user_id: m.user_id,
    workspace_id: m.workspace_id,
    created_at: m.created_at.toISOString(),
    sent_at: m.sent_at?.toISOString() ?? null,
    failed_at: m.failed_at?.toISOString() ?? null,
  };
}

/** One mail for the instance admin: the list's fields, the headers and the text body, their token links redacted. */
export function mailDetailView(m: MailRow) {
  return {
    ...mailView(m),
    headers: Object.fromEntries(Object.entries(m.headers).map(([k, v]) => [k, redactTokens(v)])),
    text: redactTokens(m.text_body),
  };
}

/** Link paths that carry a secret (invitations, password resets, unsubscribe tokens), for showing a body safely. */
const TOKEN_LINK = /(\/(?:invitations|password-reset|reset-password|unsubscribe)[^\s"'<>?#]*\/)[A-Za-z0-9._~%-]{16,}/gi;

/** A body with the tokens of its links replaced by `[redacted]`. */
export const redactTokens = (body: string): string => body.replace(TOKEN_LINK, '$1[redacted]');
