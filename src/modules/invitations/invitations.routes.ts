import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf, bearerToken } from '../../http/auth.js';
import { errorResponses, NoContent } from '../../http/schemas.js';
import {
  AcceptBody,
  CreateInvitationBody,
  Invitation,
  InvitationParams,
  InvitationPreview,
  InvitationsParams,
  Membership,
  SignedUpMember,
  TokenParams,
} from './invitations.schemas.js';
import type { InvitationsService } from './invitations.service.js';

/** Invitations to a workspace (contract 26.4). */
export const invitationsRoutes: FastifyPluginAsyncTypebox<{ invitations: InvitationsService }> = async (app, { invitations }) => {
  const tags = ['invitations'];

  app.post(
    '/api/workspaces/:slug/invitations/',
    {
      schema: {
        tags,
        summary: 'Invite an e-mail to the workspace with a role (admin); mails a link valid 7 days',
        description:
          'An e-mail that is a member already, or has a pending invitation: 409 (resend or revoke that one). Members plus pending ' +
          "invitations count against the plan's max_users (402). An existing account is also told in its inbox (`invited`).",
        params: InvitationsParams,
        body: CreateInvitationBody,
        response: { 201: Invitation, ...errorResponses(400, 402, 403, 404, 409) },
      },
    },
    async (req, reply) => reply.status(201).send(await invitations.create(actorOf(req), req.params.slug, req.body)),
  );

  app.get(
    '/api/workspaces/:slug/invitations/',
    {
      schema: {
        tags,
        summary: 'Pending invitations, newest first (admin); accepted, revoked and expired ones are not listed',
        params: InvitationsParams,
        response: { 200: Type.Array(Invitation), ...errorResponses(403, 404) },
      },
    },
    async (req) => invitations.list(actorOf(req), req.params.slug),
  );

  app.delete(
    '/api/workspaces/:slug/invitations/:invitationId/',
    {
      schema: {
        tags,
        summary: 'Revoke an invitation (admin): its link answers 410 from now on',
        params: InvitationParams,
        response: { 204: NoContent, ...errorResponses(400, 403, 404) },
      },
    },
    async (req, reply) => {
      await invitations.revoke(actorOf(req), req.params.slug, req.params.invitationId);
      return reply.status(204).send();
    },
  );

  app.post(
    '/api/workspaces/:slug/invitations/:invitationId/resend/',
    {
      schema: {
        tags,
        summary: 'Mail the invitation again with a new link (admin); the old link dies and the 7 days start again',
        params: InvitationParams,
        response: { 200: Invitation, ...errorResponses(400, 402, 403, 404) },
      },
    },
    async (req) => invitations.resend(actorOf(req), req.params.slug, req.params.invitationId),
  );

  app.get(
    '/api/invitations/:token/',
    {
      config: { public: true },
      schema: {
        tags,
        summary: "An invitation's workspace, e-mail and role, by the token of its link (no sign-in)",
        params: TokenParams,
        response: { 200: InvitationPreview, ...errorResponses(400, 404, 410) },
      },
    },
    async (req) => invitations.preview(req.params.token),
  );

  app.post(
    '/api/invitations/:token/accept/',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'Accept an invitation: signed in as the invited e-mail (200, the membership), or create the account through it (201)',
        description:
          'Signed in (Authorization): the account must be the invited e-mail, in any case (another account: 403); answers 200 with the ' +
          'membership. Not signed in, with `{password, display_name}`: creates the account for the invited e-mail (also when public ' +
          'sign-up is off) and answers 201 `{user, token, membership}`; an account that exists for the e-mail must sign in (409). ' +
          'A used, revoked, replaced or expired link: 410 `invitation_expired`; an unknown one: 404.',
        params: TokenParams,
        body: AcceptBody,
        response: { 200: Membership, 201: SignedUpMember, ...errorResponses(400, 403, 404, 409, 410) },
      },
      // Signed in, the request needs no body.
      preValidation: async (req) => {
        if (req.body === undefined || req.body === null) req.body = {};
      },
    },
    async (req, reply) => {
      const bearer = bearerToken(req);
      const actor = bearer ? await invitations.actorOfToken(bearer) : null;
      const result = await invitations.accept(actor, req.params.token, req.body);
      return reply.status(result.status).send(result.body);
    },
  );
};
