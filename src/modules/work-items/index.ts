export { type IssueCondition, type IssueSortKey, workItemsRepository } from './work-items.repository.js';
export { workItemsRoutes } from './work-items.routes.js';
export {
  type AttachmentView,
  type CommentAttachmentsProvider,
  createWorkItemsService,
  type IssueFilterProvider,
  type IssueSortProvider,
  type IssueWatchingProvider,
  issueView,
  type WorkItemsService,
} from './work-items.service.js';
// The attachments module's record (contract 25.1), defined here because comments carry it; by either name.
export { Attachment, Attachment as AttachmentSchema, IssueCard as IssueCardSchema, Issue as IssueSchema } from './work-items.schemas.js';
