import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api } from '../api';
import { Artwork } from '../library/Artwork';
import { Link } from '../router';
import { isHttpLink, yearOf } from './logic';

/** GET /api/search/unified: library hits at once, MusicBrainz hits when they answered in time. */
interface Unified {
  query: string;
  library: {
    artists: { id: string; name: string; mbid: string | null; imageUrl: string | null }[];
    albums: { id: string; title: string; artistName: string; mbid: string | null; year: number | null; imageUrl: string | null }[];
  };
  remote: {
    status: 'complete' | 'pending' | 'unavailable' | 'disabled';
    artists: { id: string; name: string; type?: string; disambiguation?: string; inLibrary?: boolean }[];
    albums: { id: string; title: string; artistName: string; releaseDate: string | null; inLibrary?: boolean }[];
  };
}

interface Suggestion {
  key: string;
  href: string;
  title: string;
  sub: string;
  image: string | null;
  round: boolean;
}

/** Library hits first (their library page), then MusicBrainz hits the library does not have. */
function suggestionsOf(u: Unified): Suggestion[] {
  const out: Suggestion[] = [];
  const seen = new Set<string>();
  for (const a of u.library.artists) {
    if (a.mbid) seen.add(a.mbid);
    out.push({ key: `la${a.id}`, href: `/library/artists/${a.id}`, title: a.name, sub: 'Artist · in your library', image: a.imageUrl, round: true });
  }
  for (const a of u.library.albums) {
    if (a.mbid) seen.add(a.mbid);
    out.push({ key: `lb${a.id}`, href: `/library/albums/${a.id}`, title: a.title, sub: ['Album', a.artistName, a.year, 'in your library'].filter(Boolean).join(' · '), image: a.imageUrl, round: false });
  }
  for (const a of u.remote.artists)
    if (!seen.has(a.id)) out.push({ key: `ra${a.id}`, href: `/artist/${a.id}`, title: a.name, sub: ['Artist', a.type, a.disambiguation].filter(Boolean).join(' · '), image: null, round: true });
  for (const a of u.remote.albums)
    if (!seen.has(a.id)) out.push({ key: `rb${a.id}`, href: `/release/${a.id}`, title: a.title, sub: ['Album', a.artistName, yearOf(a.releaseDate)].filter(Boolean).join(' · '), image: null, round: false });
  return out;
}

/** Whether this server answers /api/search/unified; learned once per page load. */
let unifiedMissing = false;

/**
 * As-you-type suggestions under the search box while the words differ from the last search; null
 * when the server has no unified search (the screen then searches as you type instead).
 */
export function useSuggestions(typed: string, searched: string) {
  const [items, setItems] = useState<Suggestion[] | null>(null);
  const [available, setAvailable] = useState(!unifiedMissing);
  const words = typed.trim();
  useEffect(() => {
    setItems(null);
    if (!available || words.length < 2 || words === searched || isHttpLink(words)) return;
    const ctl = new AbortController();
    let retry: ReturnType<typeof setTimeout> | undefined;
    const ask = () =>
      api<Unified>('/api/search/unified', { query: { q: words, limit: 5 }, signal: ctl.signal }).then(
        (u) => {
          if (ctl.signal.aborted) return;
          setItems(suggestionsOf(u));
          // MusicBrainz is still working on these words: ask again for its part.
          if (u.remote.status === 'pending') retry = setTimeout(() => void ask(), 1500);
        },
        (err: unknown) => {
          if (ctl.signal.aborted) return;
          if (err instanceof ApiError && err.status === 404) {
            unifiedMissing = true;
            setAvailable(false);
          }
        },
      );
    const t = setTimeout(() => void ask(), 250);
    return () => {
      ctl.abort();
      clearTimeout(t);
      clearTimeout(retry);
    };
  }, [words, searched, available]);
  return { available, items };
}

export function SuggestionList({ items, listRef }: { items: Suggestion[]; listRef: { current: HTMLUListElement | null } }) {
  if (items.length === 0) return null;
  return (
    <ul class="suggestions" aria-label="Suggestions" ref={listRef}>
      {items.map((s) => (
        <li key={s.key}>
          <Link href={s.href} class="suggestion">
            <Artwork url={s.image} size={64} label={s.title} class={`suggestion-art ${s.round ? 'round' : ''}`} />
            <span class="suggestion-text">
              <span class="suggestion-title">{s.title}</span>
              <span class="muted small">{s.sub}</span>
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** ArrowDown from the box goes to the first suggestion, arrows move between them, Escape returns. */
export function useSuggestionKeys() {
  const listRef = useRef<HTMLUListElement>(null);
  const links = () => [...(listRef.current?.querySelectorAll<HTMLAnchorElement>('a.suggestion') ?? [])];
  const fromBox = (e: KeyboardEvent) => {
    if (e.key !== 'ArrowDown') return;
    const first = links()[0];
    if (first) {
      e.preventDefault();
      first.focus();
    }
  };
  const inList = (e: KeyboardEvent, box: HTMLInputElement | null) => {
    const all = links();
    const i = all.indexOf(document.activeElement as HTMLAnchorElement);
    if (i === -1) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = e.key === 'ArrowDown' ? all[i + 1] : i === 0 ? box : all[i - 1];
      next?.focus();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      box?.focus();
    }
  };
  return { listRef, fromBox, inList };
}
