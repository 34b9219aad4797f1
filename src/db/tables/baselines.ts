/** Table types of the baselines module's migrations. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface BaselinesTables {}
