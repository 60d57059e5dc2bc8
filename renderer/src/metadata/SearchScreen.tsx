import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { Empty, ErrorMessage, Loading } from '../components/ui';
import { Artwork } from '../library/Artwork';
import { Link, navigate, useLocation } from '../router';
import { isHttpLink, libraryAlbumIds, resolveLink, search, yearOf, type AlbumHit, type ArtistHit, type SearchScope } from './api';
import { linkTarget, searchHref, typeLine } from './logic';
import { InLibrary, MetadataError, RequestButton } from './parts';
import { SuggestionList, useSuggestionKeys, useSuggestions } from './Suggestions';

const scopes: { id: SearchScope; label: string }[] = [
  { id: 'artist', label: 'Artists' },
  { id: 'album', label: 'Albums' },
  { id: 'tag', label: 'Tags' },
];

/**
 * One box for MusicBrainz: words search artists, albums or tags (scope tabs, "More results"); a
 * pasted http(s) link is resolved and opens the artist or release it names.
 */
export function SearchScreen() {
  const loc = useLocation();
  const q = loc.query.get('q') ?? '';
  const scopeParam = loc.query.get('scope');
  const scope: SearchScope = scopeParam === 'album' || scopeParam === 'tag' ? scopeParam : 'artist';
  const [typed, setTyped] = useState(q);
  useEffect(() => setTyped(q), [q]);
  // Suggestions as you type (library at once, MusicBrainz when it answers); Enter searches. A server
  // without them searches as you type instead.
  const suggestions = useSuggestions(typed, q);
  const keys = useSuggestionKeys();
  const box = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (suggestions.available || typed.trim() === q || isHttpLink(typed)) return;
    const t = setTimeout(() => navigate(searchHref(typed, scope), { replace: true }), 600);
    return () => clearTimeout(t);
  }, [typed, suggestions.available]);

  return (
    <div class="library meta-search">
      <div class="library-head">
        <h1>Search</h1>
        <form
          class="search"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            navigate(searchHref(typed, scope), { replace: true });
          }}
        >
          <label for="meta-search" class="visually-hidden">
            Search artists, albums and tags, or paste a link
          </label>
          <div class="search-row">
            <input
              ref={box}
              id="meta-search"
              type="search"
              placeholder="Artist, album, tag, or a Spotify / Deezer / … link"
              value={typed}
              autoFocus={!q}
              onInput={(e) => setTyped(e.currentTarget.value)}
              onKeyDown={keys.fromBox}
              aria-describedby={suggestions.items?.length ? 'meta-search-hint' : undefined}
              onPaste={(e) => {
                const text = e.clipboardData?.getData('text') ?? '';
                if (isHttpLink(text)) {
                  e.preventDefault();
                  setTyped(text.trim());
                  navigate(searchHref(text, scope), { replace: true });
                }
              }}
            />
            <button type="submit" class="primary">
              Search
            </button>
          </div>
        </form>
      </div>
      {suggestions.items && suggestions.items.length > 0 && (
        <div onKeyDown={(e) => keys.inList(e, box.current)}>
          <p id="meta-search-hint" class="visually-hidden">
            Suggestions follow; press Enter to search, or the down arrow to pick one.
          </p>
          <SuggestionList items={suggestions.items} listRef={keys.listRef} />
        </div>
      )}
      {isHttpLink(q) ? (
        <LinkLookup url={q} />
      ) : (
        <>
          <nav class="tabs" aria-label="Search in">
            {scopes.map((s) => (
              <Link key={s.id} href={searchHref(q, s.id)} class="tab" aria-current={s.id === scope ? 'page' : undefined}>
                {s.label}
              </Link>
            ))}
          </nav>
          {q ? <Results key={`${scope}:${q}`} q={q} scope={scope} /> : <Empty title="Find artists and albums on MusicBrainz.">Type a name or a tag, or paste a link from a streaming service.</Empty>}
        </>
      )}
    </div>
  );
}

function LinkLookup({ url }: { url: string }) {
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const ctl = new AbortController();
    setError(null);
    resolveLink(url, ctl.signal).then(
      (link) => !ctl.signal.aborted && navigate(linkTarget(link), { replace: true }),
      (err: unknown) => !ctl.signal.aborted && setError(err),
    );
    return () => ctl.abort();
  }, [url, tick]);
  if (!error) return <Loading label="Looking up the link…" />;
  if (error instanceof ApiError && (error.code === 'UNSUPPORTED_LINK' || error.status === 400))
    return <ErrorMessage error={new Error('Tonearm cannot read this link. Links from Spotify, Apple Music, Deezer, YouTube, Tidal, Bandcamp and MusicBrainz work.')} />;
  if (error instanceof ApiError && error.status === 404) return <ErrorMessage error={new Error('Link search is not available on this server yet.')} />;
  return <MetadataError error={error} what="link" onRetry={() => setTick((t) => t + 1)} />;
}

interface ResultState {
  items: (ArtistHit | AlbumHit)[];
  count: number;
  loading: boolean;
  error: unknown;
}

function Results({ q, scope }: { q: string; scope: SearchScope }) {
  const [state, setState] = useState<ResultState>({ items: [], count: 0, loading: true, error: null });
  const [offset, setOffset] = useState(0);
  const [tick, setTick] = useState(0);
  const firstNew = useRef<number | null>(null);
  const listRef = useRef<HTMLUListElement>(null);
  useEffect(() => {
    const ctl = new AbortController();
    setState((s) => ({ ...s, loading: true, error: null }));
    search(q, scope, offset, ctl.signal).then(
      (page) => {
        if (ctl.signal.aborted) return;
        setState((s) => ({ items: offset === 0 ? page.items : [...s.items, ...page.items], count: page.count, loading: false, error: null }));
      },
      (error: unknown) => !ctl.signal.aborted && setState((s) => ({ ...s, loading: false, error })),
    );
    return () => ctl.abort();
  }, [offset, tick]);
  // Albums the library has link to their library page.
  const [libraryIds, setLibraryIds] = useState(new Map<string, string>());
  useEffect(() => {
    const owned = state.items.filter((i) => i.inLibrary && !libraryIds.has(i.id)).map((i) => i.id);
    if (scope !== 'album' || owned.length === 0) return;
    const ctl = new AbortController();
    libraryAlbumIds(owned, ctl.signal).then(
      (found) => !ctl.signal.aborted && setLibraryIds((m) => new Map([...m, ...found])),
      () => undefined,
    );
    return () => ctl.abort();
  }, [state.items]);
  // Keyboard users keep their place: focus moves to the first result "More results" brought.
  useEffect(() => {
    if (firstNew.current === null || state.loading) return;
    listRef.current?.querySelectorAll<HTMLAnchorElement>('.tile-link')[firstNew.current]?.focus();
    firstNew.current = null;
  }, [state.items.length, state.loading]);

  const more = state.items.length < state.count && state.items.length > 0;
  const noun = scope === 'album' ? 'album' : 'artist';
  return (
    <section aria-label="Results" aria-busy={state.loading}>
      {state.items.length > 0 ? (
        <p class="muted result-count" aria-live="polite">
          {`${state.count} ${noun}${state.count === 1 ? '' : 's'}${scope === 'tag' ? ` tagged “${q}”` : ''}`}
        </p>
      ) : null}
      {state.items.length > 0 && (
        <ul class="grid" aria-label={scope === 'album' ? 'Albums' : 'Artists'} ref={listRef}>
          {state.items.map((item) => (scope === 'album' ? <AlbumResult key={item.id} hit={item as AlbumHit} libraryAlbumId={libraryIds.get(item.id)} /> : <ArtistResult key={item.id} hit={item as ArtistHit} />))}
        </ul>
      )}
      {!state.loading && !state.error && state.items.length === 0 && <Empty title={`Nothing found for “${q}”.`} />}
      <div class="page-footer">
        {state.error ? <SearchError error={state.error} onRetry={() => setTick((t) => t + 1)} /> : null}
        {state.loading && <Loading label={state.items.length ? 'Loading more results…' : 'Searching…'} />}
        {!state.loading && !state.error && more && (
          <button
            type="button"
            onClick={() => {
              firstNew.current = state.items.length;
              setOffset(state.items.length);
            }}
          >
            More results
          </button>
        )}
      </div>
    </section>
  );
}

function SearchError({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  if (error instanceof ApiError && error.status === 404 && !error.code) return <ErrorMessage error={new Error('Search is not available on this server yet.')} />;
  return <MetadataError error={error} what="search" onRetry={onRetry} />;
}

function ArtistResult({ hit }: { hit: ArtistHit }) {
  return (
    <li class="tile">
      <Link href={`/artist/${hit.id}`} class="tile-link">
        <Artwork url={hit.image ?? null} size={300} label={hit.name} class="tile-art round" />
        <span class="tile-title">{hit.name}</span>
        <span class="tile-sub muted">{[hit.type, hit.country, hit.disambiguation].filter(Boolean).join(' · ')}</span>
      </Link>
      {hit.inLibrary && (
        <div class="tile-actions">
          <span class="badge badge-owned">In library</span>
        </div>
      )}
    </li>
  );
}

function AlbumResult({ hit, libraryAlbumId }: { hit: AlbumHit; libraryAlbumId: string | undefined }) {
  return (
    <li class="tile">
      <Link href={`/release/${hit.id}`} class="tile-link">
        <Artwork url={null} size={300} label={hit.title} class="tile-art" />
        <span class="tile-title">{hit.title}</span>
        <span class="tile-sub muted">{[hit.artistName, yearOf(hit.releaseDate), typeLine(hit.type, hit.secondaryTypes)].filter(Boolean).join(' · ')}</span>
      </Link>
      <div class="tile-actions">
        {hit.inLibrary ? (
          <InLibrary libraryAlbumId={libraryAlbumId} title={hit.title} label={hit.status === 'partial' ? 'Partly in library' : 'In library'} />
        ) : hit.artistId && hit.artistName ? (
          <RequestButton compact request={{ albumMbid: hit.id, albumName: hit.title, artistMbid: hit.artistId, artistName: hit.artistName }} />
        ) : null}
      </div>
    </li>
  );
}
