/** The issue page's files and its activity (comments carry files), loaded as one chunk when an issue page opens (issue-files.tsx). */
export { Activity } from './activity.js';
export { Attachments } from './attachments.js';
