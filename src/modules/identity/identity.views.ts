import { iso, isoOrNull } from '../../kernel/time.js';
import type { Role } from './permissions.js';

/** Rows of the identity tables as the API shows them. */

type UserRow = { id: string; email: string; display_name: string; is_instance_admin: boolean; time_zone: string; created_at: Date };
type TokenRow = {
  id: string;
  name: string;
  prefix: string;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
};
type MemberRow = { user_id: string; email: string; display_name: string; role: Role; created_at: Date };

export const userView = (u: UserRow) => ({
  id: u.id,
  email: u.email,
  display_name: u.display_name,
  is_instance_admin: u.is_instance_admin,
  time_zone: u.time_zone,
  created_at: iso(u.created_at),
});

export const tokenView = (t: TokenRow) => ({
  id: t.id,
  name: t.name,
  prefix: t.prefix,
  created_at: iso(t.created_at),
  expires_at: isoOrNull(t.expires_at),
  last_used_at: isoOrNull(t.last_used_at),
});

export const memberView = (m: MemberRow) => ({
  user_id: m.user_id,
  email: m.email,
  display_name: m.display_name,
  role: m.role,
  created_at: iso(m.created_at),
});
