import { Type } from 'typebox';
import { NullableTimestamp, PageQuery, Timestamp, Uuid } from '../../http/schemas.js';
import { NOTIFICATION_KINDS } from '../../kernel/notices.js';

const EmailMode = Type.Union([Type.Literal('instant'), Type.Literal('digest'), Type.Literal('off')], {
  description:
    '`instant`: assigned, mentioned and the SLA kinds at once, batched per 2 minutes, the rest in the daily digest; ' +
    '`digest`: everything in the daily digest; `off`: no notification mail',
});
const DigestHour = Type.Integer({ minimum: 0, maximum: 23, description: "The hour (0..23) of the daily digest, in the user's time_zone" });
const kindFields = Object.fromEntries(NOTIFICATION_KINDS.map((k) => [k, Type.Boolean()])) as Record<
  (typeof NOTIFICATION_KINDS)[number],
  ReturnType<typeof Type.Boolean>
>;

export const NotificationSettings = Type.Object({
  email: EmailMode,
  digest_hour: DigestHour,
  kinds: Type.Object(kindFields, {
    description: 'Which kinds are e-mailed at all (false: inbox only); every kind is listed. Invitations are mailed by themselves, whatever `invited` says',
  }),
});

export const PutNotificationSettingsBody = Type.Object(
  {
    email: Type.Optional(EmailMode),
    digest_hour: Type.Optional(DigestHour),
    kinds: Type.Optional(
      Type.Object(
        Object.fromEntries(NOTIFICATION_KINDS.map((k) => [k, Type.Optional(Type.Boolean())])) as {
          [K in (typeof NOTIFICATION_KINDS)[number]]: ReturnType<typeof Type.Optional<ReturnType<typeof Type.Boolean>>>;
        },
        { additionalProperties: false, description: 'The kinds to change; kinds left out keep their setting (an unknown kind: 400)' },
      ),
    ),
  },
  { additionalProperties: false },
);

const MailStatus = Type.Union([Type.Literal('pending'), Type.Literal('sent'), Type.Literal('failed')]);

export const AdminMailQuery = Type.Object({ ...PageQuery.properties, status: Type.Optional(MailStatus) });

export const AdminMail = Type.Object({
  id: Uuid,
  message_id: Type.String({ description: 'The Message-ID header, made when the mail was queued and kept for every attempt' }),
  category: Type.String({ description: '`notification`, `digest`, `invitation`, `password_reset`, `test`, ...' }),
  to: Type.String(),
  subject: Type.String(),
  status: MailStatus,
  attempts: Type.Integer(),
  next_attempt_at: NullableTimestamp,
  last_answer: Type.Union([Type.String(), Type.Null()], { description: "The SMTP server's answer to the last attempt (or the connection error)" }),
  user_id: Type.Union([Uuid, Type.Null()]),
  workspace_id: Type.Union([Uuid, Type.Null()]),
  created_at: Timestamp,
  sent_at: NullableTimestamp,
  failed_at: NullableTimestamp,
});

export const AdminMailDetail = Type.Object({
  ...AdminMail.properties,
  headers: Type.Record(Type.String(), Type.String(), { description: 'Extra headers (List-Unsubscribe, ...), token links redacted' }),
  text: Type.String({ description: 'The plain-text body, with the tokens of invitation, password-reset and unsubscribe links replaced by [redacted]' }),
});

export const MailParams = Type.Object({ mailId: Uuid });

export const UnsubscribeParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 300 }) });
