/** Table types of the sla module's migrations. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface SlaTables {}
