/** Table types of the billing module's migrations. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface BillingTables {}
