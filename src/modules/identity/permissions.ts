/** The contract's permission table, as data. */
export type Role = 'admin' | 'member' | 'guest';
export const ROLES: readonly Role[] = ['admin', 'member', 'guest'];

export type Permission =
  /** read work items, comments, SLA, custom properties and values, baselines, subscription and limits */
  | 'read'
  /** add comments */
  | 'comment'
  /** create and edit issues and custom values */
  | 'write_items'
  /** SLA policies, custom property definitions, baselines, projects, states, members, the workspace itself */
  | 'manage'
  /** checkout, cancel, trial, invoices, payments, coupon validation */
  | 'billing';

const GRANTS: Record<Role, ReadonlySet<Permission>> = {
  admin: new Set(['read', 'comment', 'write_items', 'manage', 'billing']),
  member: new Set(['read', 'comment', 'write_items']),
  guest: new Set(['read', 'comment']),
};

export const roleAllows = (role: Role, permission: Permission): boolean => GRANTS[role].has(permission);
