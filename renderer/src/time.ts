/**
 * Dates and times as the screens show them: one formatter, in the browser's locale, so a screen never
 * shows "00:00" beside "12:00 AM". No imports, so unit tests run it on plain Node. `locale` is for
 * tests only; the screens pass nothing (the browser's own).
 */

type When = string | number | Date;

const toDate = (v: When): Date | null => {
  const d = v instanceof Date ? v : new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
};

/** A wall-clock time given as "HH:MM" (a flow's schedule, a show's start): "12:00 AM" or "00:00" by locale. */
export function clockTime(hhmm: string, locale?: string): string {
  const m = /^(\d{1,2}):(\d{2})/.exec(hhmm.trim());
  if (!m) return hhmm;
  return new Date(2000, 0, 1, Number(m[1]), Number(m[2])).toLocaleTimeString(locale, { timeStyle: 'short' });
}

/** A moment with its date: "Nov 27, 2026, 6:35 AM". */
export function dateTime(v: When, locale?: string): string {
  const d = toDate(v);
  return d ? d.toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'short' }) : String(v);
}

/** A moment of this week or the next (a flow's last and next run): "Fri, Nov 27, 6:35 AM". */
export function shortDateTime(v: When, locale?: string): string {
  const d = toDate(v);
  return d ? d.toLocaleString(locale, { weekday: 'short', day: 'numeric', month: 'short', hour: 'numeric', minute: '2-digit' }) : String(v);
}

/** A day without its time: "Nov 27, 2026". */
export function dateOnly(v: When, locale?: string): string {
  const d = toDate(v);
  return d ? d.toLocaleDateString(locale, { dateStyle: 'medium' }) : String(v);
}

/** A calendar day given as "YYYY-MM-DD" (a show's local date), as it is written: "Sat, Dec 12, 2026". */
export function calendarDay(ymd: string, locale?: string): string {
  const d = new Date(`${ymd}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return ymd;
  return d.toLocaleDateString(locale, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
}
