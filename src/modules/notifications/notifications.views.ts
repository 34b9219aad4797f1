import { iso, isoOrNull } from '../../kernel/time.js';
import type { InboxRow } from './notifications.repository.js';

/** A notification as the inbox shows it (contract 26.2). */
export const notificationView = (n: InboxRow) => ({
  id: n.id,
  workspace_slug: n.workspace_slug,
  issue: n.issue_id !== null && n.issue_name !== null ? { id: n.issue_id, key: `${n.project_identifier}-${n.issue_sequence_id}`, name: n.issue_name } : null,
  kind: n.kind,
  actor: n.actor_id !== null && n.actor_name !== null ? { id: n.actor_id, display_name: n.actor_name } : null,
  data: n.data,
  created_at: iso(n.created_at),
  read_at: isoOrNull(n.read_at),
  archived_at: isoOrNull(n.archived_at),
  snoozed_until: isoOrNull(n.snoozed_until),
});

/** A watcher of an issue: the user as the members list shows them. */
export const watcherView = (u: { id: string; display_name: string; email: string }) => ({ id: u.id, display_name: u.display_name, email: u.email });
