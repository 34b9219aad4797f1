import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../../http/auth.js';
import { errorResponses, NoContent, SlugParams } from '../../http/schemas.js';
import {
  AddMemberBody,
  ApiToken,
  AuthResponse,
  CreatedApiToken,
  CreateTokenBody,
  Member,
  MemberParams,
  SignInBody,
  SignUpBody,
  TokenParams,
  UpdateMeBody,
  UpdateMemberBody,
  User,
} from './identity.schemas.js';
import type { IdentityService } from './identity.service.js';

export const identityRoutes: FastifyPluginAsyncTypebox<{ identity: IdentityService }> = async (app, { identity }) => {
  const auth = { tags: ['identity'] };
  const members = { tags: ['members'] };

  app.post(
    '/api/auth/sign-up/',
    {
      config: { public: true },
      schema: { ...auth, summary: 'Create an account', body: SignUpBody, response: { 201: AuthResponse, ...errorResponses(400, 403, 409, 429) } },
    },
    async (req, reply) => reply.status(201).send(await identity.signUp(req.body, req.ip)),
  );

  app.post(
    '/api/auth/sign-in/',
    {
      config: { public: true },
      schema: { ...auth, summary: 'Sign in with e-mail and password', body: SignInBody, response: { 200: AuthResponse, ...errorResponses(400, 429) } },
    },
    async (req) => identity.signIn(req.body, req.ip),
  );

  app.post(
    '/api/auth/sign-out/',
    { schema: { ...auth, summary: 'Revoke the token of this request', response: { 204: NoContent, ...errorResponses() } } },
    async (req, reply) => {
      await identity.signOut(actorOf(req));
      return reply.status(204).send();
    },
  );

  app.get('/api/users/me/', { schema: { ...auth, summary: 'The signed-in user', response: { 200: User, ...errorResponses() } } }, async (req) =>
    identity.me(actorOf(req)),
  );

  app.patch(
    '/api/users/me/',
    {
      schema: {
        ...auth,
        summary: 'Change your display name or time zone',
        description: 'time_zone is an IANA name (`Europe/Istanbul`); an unknown zone is a 400. The mail digest is sent at its hour in this zone.',
        body: UpdateMeBody,
        response: { 200: User, ...errorResponses(400) },
      },
    },
    async (req) => identity.updateMe(actorOf(req), req.body),
  );

  app.get(
    '/api/users/me/api-tokens/',
    { schema: { ...auth, summary: 'Personal API tokens (secrets are never shown again)', response: { 200: Type.Array(ApiToken), ...errorResponses() } } },
    async (req) => identity.listTokens(actorOf(req)),
  );

  app.post(
    '/api/users/me/api-tokens/',
    {
      schema: {
        ...auth,
        summary: 'Create a personal API token; the secret is in this response only',
        body: CreateTokenBody,
        response: { 201: CreatedApiToken, ...errorResponses(400) },
      },
    },
    async (req, reply) => reply.status(201).send(await identity.createToken(actorOf(req), req.body)),
  );

  app.delete(
    '/api/users/me/api-tokens/:tokenId/',
    { schema: { ...auth, summary: 'Revoke a personal API token', params: TokenParams, response: { 204: NoContent, ...errorResponses(400, 404) } } },
    async (req, reply) => {
      await identity.deleteToken(actorOf(req), req.params.tokenId);
      return reply.status(204).send();
    },
  );

  app.get(
    '/api/workspaces/:slug/members/',
    { schema: { ...members, summary: 'Members of the workspace', params: SlugParams, response: { 200: Type.Array(Member), ...errorResponses(404) } } },
    async (req) => identity.listMembers(actorOf(req), req.params.slug),
  );

  app.post(
    '/api/workspaces/:slug/members/',
    {
      schema: {
        ...members,
        summary: 'Add an existing user by e-mail (admin)',
        params: SlugParams,
        body: AddMemberBody,
        response: { 201: Member, ...errorResponses(400, 402, 403, 404, 409) },
      },
    },
    async (req, reply) => reply.status(201).send(await identity.addMember(actorOf(req), req.params.slug, req.body)),
  );

  app.patch(
    '/api/workspaces/:slug/members/:userId/',
    {
      schema: {
        ...members,
        summary: "Change a member's role (admin)",
        params: MemberParams,
        body: UpdateMemberBody,
        response: { 200: Member, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (req) => identity.updateMember(actorOf(req), req.params.slug, req.params.userId, req.body),
  );

  app.delete(
    '/api/workspaces/:slug/members/:userId/',
    {
      schema: {
        ...members,
        summary: 'Remove a member (admin), or leave the workspace yourself',
        params: MemberParams,
        response: { 204: NoContent, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (req, reply) => {
      await identity.removeMember(actorOf(req), req.params.slug, req.params.userId);
      return reply.status(204).send();
    },
  );
};
