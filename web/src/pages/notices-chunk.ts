/** The pages of "being told" (contract 26.6), loaded as one chunk when one of them first opens (main.tsx). */
export { Inbox } from './inbox.js';
export { Invitation } from './invitation.js';
export { Members } from './members.js';
export { Settings } from './notification-settings.js';
export { ForgotPassword, ResetPassword } from './password-reset.js';
