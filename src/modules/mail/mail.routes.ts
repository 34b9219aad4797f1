import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { decodeUtf8, parseStrictForm } from '../../http/body-guards.js';
import { actorOf } from '../../http/auth.js';
import { errorResponses, pageSchema } from '../../http/schemas.js';
import { invalid } from '../../kernel/errors.js';
import { escapeHtml, kindName } from './mail.render.js';
import {
  AdminMail,
  AdminMailDetail,
  AdminMailQuery,
  MailParams,
  NotificationSettings,
  PutNotificationSettingsBody,
  UnsubscribeParams,
} from './mail.schemas.js';
import type { MailService } from './mail.service.js';

const Html = Type.String({ description: 'text/html' });

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title></head>` +
  `<body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;

const what = (scope: string) => (scope === '*' ? 'notification e-mails' : `e-mails about ${kindName(scope)}`);

/** E-mail settings, the signed unsubscribe links (RFC 8058) and the instance admin's view of the outbox (26.3). */
export const mailRoutes: FastifyPluginAsyncTypebox<{ mail: MailService }> = async (app, { mail }) => {
  app.get(
    '/api/users/me/notification-settings/',
    {
      schema: {
        tags: ['notifications'],
        summary: 'Your e-mail settings for notifications',
        description: 'Defaults: `email: instant`, `digest_hour: 8` (in your time_zone), every kind on.',
        response: { 200: NotificationSettings, ...errorResponses() },
      },
    },
    async (req) => mail.getSettings(actorOf(req)),
  );
  app.put(
    '/api/users/me/notification-settings/',
    {
      schema: {
        tags: ['notifications'],
        summary: 'Change your e-mail settings for notifications',
        description:
          'Every field is optional: what is left out keeps its value, also each kind of `kinds` (send only those to change). ' +
          'An unknown kind, an hour outside 0..23 or an unknown `email` value is a 400. Answers the whole settings.',
        body: PutNotificationSettingsBody,
        response: { 200: NotificationSettings, ...errorResponses(400) },
      },
    },
    async (req) => mail.putSettings(actorOf(req), req.body),
  );

  app.get(
    '/api/admin/mail/',
    {
      schema: {
        tags: ['admin'],
        summary: 'The mail outbox: every mail and its fate, newest first (instance admin)',
        description:
          "States `pending` (waiting, retrying, or kept because SMTP_URL is unset), `sent`, `failed` with the server's answer. " +
          'Bodies are never shown (invitation and password-reset links are secrets); `npm run cli -- mail show ID` shows them.',
        querystring: AdminMailQuery,
        response: { 200: pageSchema(AdminMail), ...errorResponses(400, 403) },
      },
    },
    async (req) => mail.listMails(actorOf(req), req.query),
  );

  app.get(
    '/api/admin/mail/:mailId/',
    {
      schema: {
        tags: ['admin'],
        summary: 'One mail of the outbox: its fate, headers and text (instance admin)',
        description: 'The tokens of invitation, password-reset and unsubscribe links are replaced by `[redacted]`; the HTML body is not shown.',
        params: MailParams,
        response: { 200: AdminMailDetail, ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => mail.getMail(actorOf(req), req.params.mailId),
  );

  // The unsubscribe link of every notification mail: public (the signed token is the credential).
  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    // RFC 8058: the one-click POST is a form (`List-Unsubscribe=One-Click`), urlencoded or multipart.
    scope.removeContentTypeParser(['application/x-www-form-urlencoded']);
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer', bodyLimit: 4096 }, (_req, raw, done) => {
      const text = decodeUtf8(raw as Buffer);
      done(null, (text === null ? null : parseStrictForm(text)) ?? {});
    });
    scope.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: 4096 }, (_req, raw, done) => {
      const text = decodeUtf8(raw as Buffer) ?? '';
      const m = /name="List-Unsubscribe"\r?\n(?:[^\r\n]+\r?\n)*\r?\n([^\r\n]*)/i.exec(text);
      done(null, m ? { 'List-Unsubscribe': m[1] } : {});
    });

    scope.get(
      '/api/mail/unsubscribe/:token/',
      {
        config: { public: true },
        schema: {
          tags: ['notifications'],
          summary: 'The page of an unsubscribe link: asks to confirm (changes nothing)',
          description:
            'A GET changes nothing (mail scanners open links): it answers a small page whose button sends the one-click POST. ' +
            'A malformed, tampered or foreign token: 404.',
          security: [],
          params: UnsubscribeParams,
          response: { 200: Html, ...errorResponses(404) },
        },
      },
      async (req, reply) => {
        const { scope: s } = await mail.readToken(req.params.token);
        const body =
          `<p>Stop ${escapeHtml(what(s))}? You can turn them on again in your notification settings.</p>` +
          `<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`;
        return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page('Unsubscribe', body));
      },
    );
    scope.post(
      '/api/mail/unsubscribe/:token/',
      {
        config: { public: true },
        schema: {
          tags: ['notifications'],
          summary: 'One-click unsubscribe (RFC 8058): turns the kind of the link off',
          description:
            'The body is the form `List-Unsubscribe=One-Click` (application/x-www-form-urlencoded or multipart/form-data). ' +
            "Turns the link's kind off for its user (a mail about several kinds: notification mail off) without signing in. " +
            'A malformed, tampered or foreign token: 404, nothing changed. Repeating it changes nothing more.',
          security: [],
          params: UnsubscribeParams,
          response: { 200: Html, ...errorResponses(400, 404) },
        },
      },
      async (req, reply) => {
        const form = (req.body ?? {}) as Record<string, unknown>;
        if (form['List-Unsubscribe'] !== 'One-Click') throw invalid('/List-Unsubscribe', 'The body must be the form List-Unsubscribe=One-Click');
        const { scope: s } = await mail.unsubscribe(req.params.token);
        const body = `<p>Done: you will no longer receive ${escapeHtml(what(s))}. You can turn them on again in your notification settings.</p>`;
        return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page('Unsubscribed', body));
      },
    );
  });
};
