import { createCommentsService } from './work-items.comments.js';
import type { WorkItemsDeps } from './work-items.deps.js';
import { createIssuesService } from './work-items.issues.js';
import { createLabelsService } from './work-items.labels.js';
import { createProjectsService } from './work-items.projects.js';
import { createRelationsService } from './work-items.relations.js';
import { createStatesService } from './work-items.states.js';

export type {
  AttachmentView,
  CommentAttachmentsProvider,
  IssueFilterProvider,
  IssueSortProvider,
  IssueWatchingProvider,
  WorkItemsDeps,
} from './work-items.deps.js';
export { issueCardView, issueSnapshot, issueView, projectView } from './work-items.views.js';

export type WorkItemsService = ReturnType<typeof createWorkItemsService>;

/**
 * The work-item core, composed of one part per resource: projects (`work-items.projects.ts`), states
 * (`work-items.states.ts`), issues (`work-items.issues.ts`), comments (`work-items.comments.ts`), labels
 * (`work-items.labels.ts`) and relations (`work-items.relations.ts`).
 */
export function createWorkItemsService(deps: WorkItemsDeps) {
  return {
    ...createProjectsService(deps),
    ...createStatesService(deps),
    ...createIssuesService(deps),
    ...createCommentsService(deps),
    ...createLabelsService(deps),
    ...createRelationsService(deps),
  };
}
