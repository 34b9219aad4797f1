/** The issue page's files and comments, loaded as one chunk when an issue page opens (issue-files.tsx). */
export { Attachments } from './attachments.js';
export { Comments } from './comments.js';
