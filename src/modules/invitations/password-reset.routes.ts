import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, NoContent } from '../../http/schemas.js';
import { PasswordResetBody, PasswordResetConfirmBody } from './invitations.schemas.js';
import type { PasswordResetService } from './password-reset.service.js';

/** Password reset (contract 26.5). */
export const passwordResetRoutes: FastifyPluginAsyncTypebox<{ passwordReset: PasswordResetService }> = async (app, { passwordReset }) => {
  const tags = ['identity'];

  app.post(
    '/api/auth/password-reset/',
    {
      config: { public: true },
      schema: {
        tags,
        operationId: 'requestPasswordReset',
        summary: 'Ask for a password reset link by e-mail: 202 whether or not the e-mail has an account',
        description:
          'For an account, mails a single-use link valid one hour. The answer takes the same time either way. Rate limited as ' +
          'sign-in (per e-mail and per client address): 429 with Retry-After.',
        body: PasswordResetBody,
        response: { 202: NoContent, ...errorResponses(400, 429) },
      },
    },
    async (req, reply) => {
      await passwordReset.request(req.body, req.ip);
      return reply.status(202).send();
    },
  );

  app.post(
    '/api/auth/password-reset/confirm/',
    {
      config: { public: true },
      schema: {
        tags,
        operationId: 'confirmPasswordReset',
        summary: "Set a new password with a reset link's token; signs the account out everywhere (API tokens stay)",
        description: 'An unknown, used, expired or altered token: 400 naming `/token`, and nothing changes.',
        body: PasswordResetConfirmBody,
        response: { 204: NoContent, ...errorResponses(400, 429) },
      },
    },
    async (req, reply) => {
      await passwordReset.confirm(req.body, req.ip);
      return reply.status(204).send();
    },
  );
};
