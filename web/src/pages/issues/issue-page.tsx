/**
 * The issue page's route: the page itself (issue-view.tsx: fields edited in place, the properties sidebar, the
 * activity feed) is a chunk of its own, loaded when an issue is first opened, so the console's main bundle (every
 * page's first load) does not carry it.
 */
import { lazy } from '../../lazy.js';

export const IssuePage = lazy(() => import('./issue-view.js').then((m) => m.IssueView));
