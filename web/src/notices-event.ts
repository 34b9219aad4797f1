/** The event that tells the bell to count again (main bundle: the bell; the inbox fires it). */
export const NOTICES_CHANGED = 'console:notices-changed';
export const noticesChanged = () => window.dispatchEvent(new Event(NOTICES_CHANGED));
