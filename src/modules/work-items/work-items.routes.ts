import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../../http/auth.js';
import { errorResponses, NoContent, pageSchema, SlugParams } from '../../http/schemas.js';
import {
  BulkDeleteBody,
  BulkDeleteResult,
  BulkUpdateBody,
  BulkUpdateResult,
  Comment,
  CommentParams,
  CreateLabelBody,
  CreateRelationBody,
  Label,
  LabelParams,
  Relation,
  RelationParams,
  UpdateLabelBody,
  UpdateCommentBody,
  CreateCommentBody,
  CreateIssueBody,
  CreateProjectBody,
  CreateStateBody,
  Issue,
  IssueListQuery,
  IssueParams,
  Project,
  ProjectParams,
  State,
  StateParams,
  UpdateIssueBody,
  UpdateProjectBody,
  UpdateStateBody,
  WorkspaceIssueListQuery,
} from './work-items.schemas.js';
import type { WorkItemsService } from './work-items.service.js';

export const workItemsRoutes: FastifyPluginAsyncTypebox<{ workItems: WorkItemsService }> = async (app, { workItems }) => {
  const projects = { tags: ['projects'] };
  const states = { tags: ['states'] };
  const issues = { tags: ['issues'] };

  app.get(
    '/api/workspaces/:slug/projects/',
    { schema: { ...projects, summary: 'Projects of the workspace', params: SlugParams, response: { 200: Type.Array(Project), ...errorResponses(404) } } },
    async (req) => workItems.listProjects(actorOf(req), req.params.slug),
  );
  app.post(
    '/api/workspaces/:slug/projects/',
    {
      schema: {
        ...projects,
        summary: 'Create a project with the five default states (admin)',
        params: SlugParams,
        body: CreateProjectBody,
        response: { 201: Project, ...errorResponses(400, 402, 403, 404, 409) },
      },
    },
    async (req, reply) => reply.status(201).send(await workItems.createProject(actorOf(req), req.params.slug, req.body)),
  );
  app.get(
    '/api/workspaces/:slug/projects/:projectId/',
    { schema: { ...projects, summary: 'One project', params: ProjectParams, response: { 200: Project, ...errorResponses(400, 404) } } },
    async (req) => workItems.getProject(actorOf(req), req.params.slug, req.params.projectId),
  );
  app.patch(
    '/api/workspaces/:slug/projects/:projectId/',
    {
      schema: {
        ...projects,
        summary: 'Update a project, including its SLA policy (admin)',
        params: ProjectParams,
        body: UpdateProjectBody,
        response: { 200: Project, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (req) => workItems.updateProject(actorOf(req), req.params.slug, req.params.projectId, req.body),
  );
  app.delete(
    '/api/workspaces/:slug/projects/:projectId/',
    {
      schema: {
        ...projects,
        summary: 'Delete a project and its issues (admin)',
        params: ProjectParams,
        response: { 204: NoContent, ...errorResponses(400, 403, 404) },
      },
    },
    async (req, reply) => {
      await workItems.deleteProject(actorOf(req), req.params.slug, req.params.projectId);
      return reply.status(204).send();
    },
  );

  app.get(
    '/api/workspaces/:slug/projects/:projectId/states/',
    { schema: { ...states, summary: 'States of the project', params: ProjectParams, response: { 200: Type.Array(State), ...errorResponses(400, 404) } } },
    async (req) => workItems.listStates(actorOf(req), req.params.slug, req.params.projectId),
  );
  app.post(
    '/api/workspaces/:slug/projects/:projectId/states/',
    {
      schema: {
        ...states,
        summary: 'Create a state (admin)',
        params: ProjectParams,
        body: CreateStateBody,
        response: { 201: State, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (req, reply) => reply.status(201).send(await workItems.createState(actorOf(req), req.params.slug, req.params.projectId, req.body)),
  );
  app.patch(
    '/api/workspaces/:slug/projects/:projectId/states/:stateId/',
    {
      schema: {
        ...states,
        summary: 'Update a state (admin); a state in use keeps its group',
        params: StateParams,
        body: UpdateStateBody,
        response: { 200: State, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (req) => workItems.updateState(actorOf(req), req.params.slug, req.params.projectId, req.params.stateId, req.body),
  );
  app.delete(
    '/api/workspaces/:slug/projects/:projectId/states/:stateId/',
    {
      schema: {
        ...states,
        summary: 'Delete a state no issue uses (admin)',
        params: StateParams,
        response: { 204: NoContent, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (req, reply) => {
      await workItems.deleteState(actorOf(req), req.params.slug, req.params.projectId, req.params.stateId);
      return reply.status(204).send();
    },
  );

  const FILTERS =
    'Filters, each repeatable (`?state_id=a&state_id=b`) or comma-separated (`?state_id=a,b`), values ORed, filters ' +
    'ANDed: `state_group`, `priority`, `state_id`, `assignee_id` (UUID, `me`, `none`), `created_by` (UUID, `me`), ' +
    '`label_id`, `parent_id` (UUID, `none`: top-level issues); `created_from`/`updated_from` (inclusive) and ' +
    '`created_to`/`updated_to` (exclusive) instants; `target_date_from`/`target_date_to` dates, `overdue`. An id that ' +
    "names nothing (another workspace's, a deleted state's) matches nothing; a malformed value is a 400 naming the " +
    'parameter. Custom property filters: `custom.<propertyId>=<value>` (equality; contains for multi_select) and ' +
    '`custom.<propertyId>.gte` / `custom.<propertyId>.lte` (ranges for number and date properties). `total` is exact.';
  app.get(
    '/api/workspaces/:slug/projects/:projectId/issues/',
    {
      schema: {
        ...issues,
        summary: 'Issues of the project, newest first',
        description: FILTERS,
        params: ProjectParams,
        querystring: IssueListQuery,
        response: { 200: pageSchema(Issue), ...errorResponses(400, 404) },
      },
    },
    async (req) => workItems.listIssues(actorOf(req), req.params.slug, req.params.projectId, req.query),
  );
  app.get(
    '/api/workspaces/:slug/issues/',
    {
      schema: {
        ...issues,
        summary: 'Issues of every project of the workspace, newest first',
        description:
          'The project list across the workspace (every role that reads the workspace), with the same filters and ' +
          'sorts plus `project_id` (repeatable). "My issues": `assignee_id=me&state_group=unstarted&state_group=started`. ' +
          FILTERS,
        params: SlugParams,
        querystring: WorkspaceIssueListQuery,
        response: { 200: pageSchema(Issue), ...errorResponses(400, 404) },
      },
    },
    async (req) => workItems.listWorkspaceIssues(actorOf(req), req.params.slug, req.query),
  );
  app.post(
    '/api/workspaces/:slug/projects/:projectId/issues/',
    {
      schema: {
        ...issues,
        summary: 'Create an issue (admin, member)',
        params: ProjectParams,
        body: CreateIssueBody,
        response: { 201: Issue, ...errorResponses(400, 403, 404) },
      },
    },
    async (req, reply) => reply.status(201).send(await workItems.createIssue(actorOf(req), req.params.slug, req.params.projectId, req.body)),
  );
  app.get(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/',
    { schema: { ...issues, summary: 'One issue', params: IssueParams, response: { 200: Issue, ...errorResponses(400, 404) } } },
    async (req) => workItems.getIssue(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId),
  );
  app.patch(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/',
    {
      schema: {
        ...issues,
        summary: 'Update an issue (admin, member)',
        params: IssueParams,
        body: UpdateIssueBody,
        response: { 200: Issue, ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => workItems.updateIssue(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId, req.body),
  );
  app.delete(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/',
    { schema: { ...issues, summary: 'Delete an issue (admin, member)', params: IssueParams, response: { 204: NoContent, ...errorResponses(400, 403, 404) } } },
    async (req, reply) => {
      await workItems.deleteIssue(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId);
      return reply.status(204).send();
    },
  );

  app.post(
    '/api/workspaces/:slug/projects/:projectId/issues/bulk/',
    {
      schema: {
        ...issues,
        summary: 'Change up to 500 issues together (admin, member)',
        description:
          'All or nothing, in one transaction: each issue changes exactly as a PATCH of it would (history, SLA ' +
          're-targeting, one `issue.updated` per changed issue). An id that is not an issue of the project: 400 naming it.',
        params: ProjectParams,
        body: BulkUpdateBody,
        response: { 200: BulkUpdateResult, ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => workItems.bulkUpdateIssues(actorOf(req), req.params.slug, req.params.projectId, req.body),
  );
  app.post(
    '/api/workspaces/:slug/projects/:projectId/issues/bulk-delete/',
    {
      schema: {
        ...issues,
        summary: 'Delete up to 500 issues together (admin, member)',
        description: 'All or nothing, in one transaction, each as a DELETE of it would (children stay, top-level).',
        params: ProjectParams,
        body: BulkDeleteBody,
        response: { 200: BulkDeleteResult, ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => workItems.bulkDeleteIssues(actorOf(req), req.params.slug, req.params.projectId, req.body),
  );

  const labels = { tags: ['labels'] };
  app.get(
    '/api/workspaces/:slug/projects/:projectId/labels/',
    {
      schema: {
        ...labels,
        summary: 'Labels of the project, by name',
        params: ProjectParams,
        response: { 200: Type.Array(Label), ...errorResponses(400, 404) },
      },
    },
    async (req) => workItems.listLabels(actorOf(req), req.params.slug, req.params.projectId),
  );
  app.post(
    '/api/workspaces/:slug/projects/:projectId/labels/',
    {
      schema: {
        ...labels,
        summary: 'Create a label (admin, member)',
        params: ProjectParams,
        body: CreateLabelBody,
        response: { 201: Label, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (req, reply) => reply.status(201).send(await workItems.createLabel(actorOf(req), req.params.slug, req.params.projectId, req.body)),
  );
  app.patch(
    '/api/workspaces/:slug/projects/:projectId/labels/:labelId/',
    {
      schema: {
        ...labels,
        summary: 'Update a label (admin, member)',
        params: LabelParams,
        body: UpdateLabelBody,
        response: { 200: Label, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (req) => workItems.updateLabel(actorOf(req), req.params.slug, req.params.projectId, req.params.labelId, req.body),
  );
  app.delete(
    '/api/workspaces/:slug/projects/:projectId/labels/:labelId/',
    {
      schema: {
        ...labels,
        summary: 'Delete a label and take it off its issues (admin, member)',
        params: LabelParams,
        response: { 204: NoContent, ...errorResponses(400, 403, 404) },
      },
    },
    async (req, reply) => {
      await workItems.deleteLabel(actorOf(req), req.params.slug, req.params.projectId, req.params.labelId);
      return reply.status(204).send();
    },
  );

  const relations = { tags: ['relations'] };
  app.get(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/relations/',
    {
      schema: {
        ...relations,
        summary: 'Relations of an issue, from its side, oldest first',
        params: IssueParams,
        response: { 200: Type.Array(Relation), ...errorResponses(400, 404) },
      },
    },
    async (req) => workItems.listRelations(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId),
  );
  app.post(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/relations/',
    {
      schema: {
        ...relations,
        summary: 'Relate an issue to another of the workspace (admin, member)',
        description: 'One relation per pair of issues, whichever way round (409 for a second). The answer reads from the issue of the path.',
        params: IssueParams,
        body: CreateRelationBody,
        response: { 201: Relation, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (req, reply) =>
      reply.status(201).send(await workItems.createRelation(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId, req.body)),
  );
  app.delete(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/relations/:relationId/',
    {
      schema: {
        ...relations,
        summary: 'Remove a relation (admin, member)',
        params: RelationParams,
        response: { 204: NoContent, ...errorResponses(400, 403, 404) },
      },
    },
    async (req, reply) => {
      await workItems.deleteRelation(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId, req.params.relationId);
      return reply.status(204).send();
    },
  );

  app.get(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/comments/',
    {
      schema: {
        tags: ['comments'],
        summary: 'Comments of an issue, oldest first',
        params: IssueParams,
        response: { 200: Type.Array(Comment), ...errorResponses(400, 404) },
      },
    },
    async (req) => workItems.listComments(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId),
  );
  app.post(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/comments/',
    {
      schema: {
        tags: ['comments'],
        summary: 'Comment on an issue (every role)',
        params: IssueParams,
        body: CreateCommentBody,
        response: { 201: Comment, ...errorResponses(400, 404) },
      },
    },
    async (req, reply) =>
      reply.status(201).send(await workItems.createComment(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId, req.body)),
  );
  app.patch(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/comments/:commentId/',
    {
      schema: {
        tags: ['comments'],
        summary: 'Edit a comment (its author only)',
        description: 'Replaces the body and sets `edited_at`. Another user, even an admin: 403.',
        params: CommentParams,
        body: UpdateCommentBody,
        response: { 200: Comment, ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => workItems.updateComment(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId, req.params.commentId, req.body),
  );
  app.delete(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/comments/:commentId/',
    {
      schema: {
        tags: ['comments'],
        summary: 'Delete a comment and its attachments (its author or an admin)',
        params: CommentParams,
        response: { 204: NoContent, ...errorResponses(400, 403, 404) },
      },
    },
    async (req, reply) => {
      await workItems.deleteComment(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId, req.params.commentId);
      return reply.status(204).send();
    },
  );
};
