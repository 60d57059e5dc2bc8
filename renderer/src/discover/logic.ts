/** Pure helpers of the Discover screen (with the import-free time formatter and messages, so unit tests run them on plain Node). */
import { inWords } from '../messages.js';
import { calendarDay, clockTime } from '../time.js';

export interface NamedArtist {
  name: string;
  id: string | null;
}

/** Artist names compare without case and outer spaces, as the server's name keys do. */
export const nameKey = (name: string) => name.trim().toLowerCase();

/** Where an entry links: the metadata artist page when its MusicBrainz id is known, else a search for the name. */
export function artistHref(a: NamedArtist): string {
  return a.id ? `/artist/${encodeURIComponent(a.id)}` : `/search?q=${encodeURIComponent(a.name.trim()).replace(/%20/g, '+')}`;
}

/** "Last.fm", "ListenBrainz", "your plays"... for a seed's or entry's source. */
export function sourceLabel(source: string | null | undefined): string {
  switch (source) {
    case 'lastfm':
      return 'Last.fm';
    case 'listenbrainz':
      return 'ListenBrainz';
    case 'koito':
      return 'Koito';
    case 'local':
    case 'plays':
      return 'your plays';
    case 'library':
      return 'your library';
    default:
      return source ?? '';
  }
}

/** The refresh's progress line from a /ws discovery_update (progress in percent, as the server reports it). */
export function progressText(u: { updatePhase: string | null; updateProgress: number | null; updateProgressMessage: string | null }): string {
  const pct = progressValue(u.updateProgress);
  const words = u.updateProgressMessage ?? u.updatePhase ?? 'Updating';
  return pct === null ? words : `${words} (${pct}%)`;
}

/** The progress bar's value (0–100), or null while the server gives none. */
export function progressValue(p: number | null): number | null {
  if (p === null || !Number.isFinite(p)) return null;
  return Math.min(100, Math.max(0, Math.round(p)));
}

/** "Items 25–48 of 120" for a page; empty when there is nothing. */
export function pageRange(offset: number, count: number, total: number): string {
  if (count === 0) return '';
  return `${offset + 1}–${offset + count} of ${total}`;
}

/** The list without the artists named (the server already dropped them after "less like this" or an exclusion). */
export function without<T extends { name: string }>(list: T[], names: string[]): T[] {
  const gone = new Set(names.map(nameKey));
  return list.filter((e) => !gone.has(nameKey(e.name)));
}

/** A list edited as text: trimmed, without empties and case-insensitive duplicates, first spelling kept. */
export function addToList(list: string[], value: string): string[] {
  const v = value.trim();
  if (!v || list.some((x) => nameKey(x) === nameKey(v))) return list;
  return [...list, v];
}

export function removeFromList(list: string[], value: string): string[] {
  return list.filter((x) => nameKey(x) !== nameKey(value));
}

/** A show's date in words: "Sat, Dec 12, 2026, 8:00 PM" (the venue's local date and time as Ticketmaster gives them, in the browser's format). */
export function showDate(date: string | null, time: string | null, locale?: string): string {
  if (!date) return 'Date to be announced';
  const day = calendarDay(date, locale);
  if (day === date) return date;
  return time ? `${day}, ${clockTime(time.slice(0, 5), locale)}` : day;
}

/**
 * The warning of out-of-date recommendations, with the cause the server recorded ("ListenBrainz could
 * not be reached (host not found)"); setting keys in it are said in words.
 */
export function staleText(v: { lastUpdated: string | null; lastError?: string | null }): string {
  const cause = v.lastError ? inWords(v.lastError).replace(/\.$/, '') : null;
  const again = 'It is tried again on its own; you can also press Refresh.';
  if (!v.lastUpdated) return cause ? `Discovery could not update: ${cause}. ${again}` : `Discovery has not updated yet. ${again}`;
  return cause
    ? `These recommendations are out of date: the last update did not finish (${cause}). ${again}`
    : `These recommendations are out of date. ${again}`;
}

/** What the empty recommendations say: the popular genres below are promised only when there are some. */
export function emptyText(v: { fallbackGenres: { artists: unknown[] }[]; globalTop: unknown[] }): string {
  const first = 'Play some music or add artists to your library, then refresh.';
  if (v.fallbackGenres.some((g) => g.artists.length > 0)) return `${first} Meanwhile, here is what is popular in some genres.`;
  if (v.globalTop.length > 0) return `${first} Meanwhile, here is what is popular everywhere.`;
  return first;
}
