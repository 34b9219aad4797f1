/** Table types of the custom-properties module's migrations. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface CustomPropertiesTables {}
