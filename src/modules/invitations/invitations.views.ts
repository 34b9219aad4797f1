import { iso } from '../../kernel/time.js';
import type { InvitationRow } from './invitations.repository.js';

/** An invitation as the admin sees it (never its token). */
export const invitationView = (row: InvitationRow) => ({
  id: row.id,
  email: row.email,
  role: row.role,
  invited_by: row.invited_by,
  created_at: iso(row.created_at),
  expires_at: iso(row.expires_at),
});
