import { v7 as uuidv7 } from 'uuid';

/** Identifiers are UUID v7: time-ordered, so primary-key indexes stay append-friendly. */
export const newId = (): string => uuidv7();

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID_RE.test(value);
