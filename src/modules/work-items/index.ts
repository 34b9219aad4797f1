export { type IssueCondition, type IssueSortKey, workItemsRepository } from './work-items.repository.js';
export { workItemsRoutes } from './work-items.routes.js';
export { createWorkItemsService, type IssueFilterProvider, type IssueSortProvider, issueView, type WorkItemsService } from './work-items.service.js';
export { IssueCard as IssueCardSchema, Issue as IssueSchema } from './work-items.schemas.js';
