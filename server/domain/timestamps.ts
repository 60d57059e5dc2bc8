/**
 * Instants stored as milliseconds since the epoch, and their ISO 8601 form on the wire. Every
 * stored instant a client can set (play times) is checked against one range, and every instant is
 * rendered by one function that never throws, so a bad value can neither be stored nor break a read.
 */

/** 9999-12-31T23:59:59.999Z: the last instant whose ISO form keeps a four-digit year (xsd:dateTime readers expect one). */
export const LATEST_TIME_MS = 253_402_300_799_999;
/** 0000-01-01T00:00:00.000Z: the first instant with a four-digit year. */
export const EARLIEST_TIME_MS = -62_167_219_200_000;

/** A play time a client may submit: a whole number of milliseconds from 1970 up to the year 9999. */
export function isPlayTime(ms: number): boolean {
  return Number.isSafeInteger(ms) && ms >= 0 && ms <= LATEST_TIME_MS;
}

/** ISO 8601 for an instant, or undefined when the value is not one a date can show (never throws). */
export function isoTime(ms: number | null | undefined): string | undefined {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < EARLIEST_TIME_MS || ms > LATEST_TIME_MS) return undefined;
  return new Date(ms).toISOString();
}
