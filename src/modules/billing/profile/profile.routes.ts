import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../../http/auth.js';
import { errorResponses } from '../../../http/schemas.js';
import { invalid } from '../../../kernel/errors.js';
import { WorkspaceParams } from '../billing.schemas.js';
import type { BillingService } from '../billing.service.js';
import { BillingProfile, PutBillingProfileBody } from './profile.schemas.js';

type Opts = { billing: BillingService };

/** Contract 19.5: the billing profile (admins). */
export const profileRoutes: FastifyPluginAsyncTypebox<Opts> = async (app, { billing }) => {
  const tags = ['billing'];

  app.get(
    '/api/workspaces/:slug/billing/profile/',
    {
      schema: {
        tags,
        summary: 'The billing profile, the buyer on invoices and credit notes (admin); before the first PUT every field is null but country TR',
        params: WorkspaceParams,
        response: { 200: BillingProfile, ...errorResponses(403, 404) },
      },
    },
    async (req) => billing.getProfile(actorOf(req), req.params.slug),
  );
  app.put(
    '/api/workspaces/:slug/billing/profile/',
    {
      // A missing legal_name is named as the field (the schema's own error names only the object).
      preValidation: async (req) => {
        const body = req.body as Record<string, unknown> | null | undefined;
        if (body && typeof body === 'object' && !Array.isArray(body) && body.legal_name === undefined) throw invalid('/legal_name', 'is required');
      },
      schema: {
        tags,
        summary: 'Replace the billing profile (admin); documents already issued keep the profile they froze',
        params: WorkspaceParams,
        body: PutBillingProfileBody,
        response: { 200: BillingProfile, ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => billing.putProfile(actorOf(req), req.params.slug, req.body),
  );
};
