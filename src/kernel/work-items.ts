/**
 * The vocabulary of the work-item core, spelled out once: every schema, table type, query and test that lists the
 * priorities or the state groups takes them from here (in this order: the order of the API's breakdowns).
 */
export const PRIORITIES = ['urgent', 'high', 'medium', 'low', 'none'] as const;
export type Priority = (typeof PRIORITIES)[number];

export const STATE_GROUPS = ['backlog', 'unstarted', 'started', 'completed', 'cancelled'] as const;
export type StateGroup = (typeof STATE_GROUPS)[number];
