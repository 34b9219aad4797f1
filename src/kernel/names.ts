/**
 * The form of a name that a uniqueness check ignoring case compares (custom properties, labels): "Status", "STATUS"
 * and "status" are one name, "Straße" and "STRASSE" too. Computed here, not by the database's lower(), which in
 * PGlite's C locale leaves every non-ASCII letter as it is.
 */
export const nameKey = (name: string): string => name.normalize('NFC').toUpperCase().toLowerCase();
