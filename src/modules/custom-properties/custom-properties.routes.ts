import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../../http/auth.js';
import { errorResponses, NoContent } from '../../http/schemas.js';
import {
  CreatePropertyBody,
  IssueValue,
  IssueValuesParams,
  ProjectParams,
  Property,
  PropertyParams,
  SetValueBody,
  StoredValue,
  MergeOptionsBody,
  MergeOptionsResult,
  PropertyUsage,
  UpdatePropertyBody,
  UpdatePropertyQuery,
  ValueParams,
} from './custom-properties.schemas.js';
import type { CustomPropertiesService } from './custom-properties.service.js';

export const customPropertiesRoutes: FastifyPluginAsyncTypebox<{ customProperties: CustomPropertiesService }> = async (app, { customProperties: cp }) => {
  const tags = ['custom-properties'];

  app.get(
    '/api/workspaces/:slug/projects/:projectId/custom-properties/',
    {
      schema: {
        tags,
        summary: 'Custom properties of the project, oldest first',
        params: ProjectParams,
        response: { 200: Type.Array(Property), ...errorResponses(400, 404) },
      },
    },
    async (req) => cp.listProperties(actorOf(req), req.params.slug, req.params.projectId),
  );
  app.post(
    '/api/workspaces/:slug/projects/:projectId/custom-properties/',
    {
      schema: {
        tags,
        summary: 'Define a custom property (admin; needs the custom_properties plan feature)',
        description:
          'The name is unique in the project ignoring case (409). select and multi_select need a non-empty list of ' +
          'distinct options; the other types take none. The type cannot change later.',
        params: ProjectParams,
        body: CreatePropertyBody,
        response: { 201: Property, ...errorResponses(400, 402, 403, 404, 409) },
      },
    },
    async (req, reply) => reply.status(201).send(await cp.createProperty(actorOf(req), req.params.slug, req.params.projectId, req.body)),
  );
  app.patch(
    '/api/workspaces/:slug/custom-properties/:propertyId/',
    {
      schema: {
        tags,
        summary: 'Update a custom property (admin)',
        description:
          'Changes only the fields sent; `options`, when sent, replaces the list. Removing an option that an issue ' +
          'uses answers 409 option_in_use unless `?force=true`, which also removes it from those values (a select ' +
          'value becomes unset). A `type` other than the current one is a 400.',
        params: PropertyParams,
        querystring: UpdatePropertyQuery,
        body: UpdatePropertyBody,
        response: { 200: Property, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (req) => cp.updateProperty(actorOf(req), req.params.slug, req.params.propertyId, req.body, req.query.force),
  );
  app.get(
    '/api/workspaces/:slug/custom-properties/:propertyId/usage/',
    {
      schema: {
        tags,
        summary: 'How many issues have a value, and how many use each option (every role)',
        params: PropertyParams,
        response: { 200: PropertyUsage, ...errorResponses(400, 404) },
      },
    },
    async (req) => cp.usage(actorOf(req), req.params.slug, req.params.propertyId),
  );
  app.post(
    '/api/workspaces/:slug/custom-properties/:propertyId/merge-options/',
    {
      schema: {
        tags,
        summary: 'Merge options into one (admin): values follow, the merged options are removed; dry_run only counts',
        params: PropertyParams,
        body: MergeOptionsBody,
        response: { 200: MergeOptionsResult, ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => cp.mergeOptions(actorOf(req), req.params.slug, req.params.propertyId, req.body),
  );
  app.delete(
    '/api/workspaces/:slug/custom-properties/:propertyId/',
    {
      schema: {
        tags,
        summary: 'Delete a custom property and all its values (admin)',
        params: PropertyParams,
        response: { 204: NoContent, ...errorResponses(400, 403, 404) },
      },
    },
    async (req, reply) => {
      await cp.deleteProperty(actorOf(req), req.params.slug, req.params.propertyId);
      return reply.status(204).send();
    },
  );

  app.get(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/custom-values/',
    {
      schema: {
        tags,
        summary: 'Custom values of an issue: one entry per property of the project, value null where unset',
        params: IssueValuesParams,
        response: { 200: Type.Array(IssueValue), ...errorResponses(400, 404) },
      },
    },
    async (req) => cp.listValues(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId),
  );
  app.put(
    '/api/workspaces/:slug/issues/:issueId/custom-values/:propertyId/',
    {
      schema: {
        tags,
        summary: 'Set or clear (null) the value of a custom property on an issue (admin, member)',
        description: "The property must belong to the issue's project (else 404). The value is stored and returned exactly as sent.",
        params: ValueParams,
        body: SetValueBody,
        response: { 200: StoredValue, ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => cp.setValue(actorOf(req), req.params.slug, req.params.issueId, req.params.propertyId, req.body.value),
  );
};
