import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { Empty, ErrorMessage, Loading, useAsync } from '../components/ui';
import { Artwork } from '../library/Artwork';
import { canonicalPage } from '../library/model';
import { AlbumGrid, ArtistGrid, TrackList } from '../library/parts';
import { listPlaylists } from '../playlists/api';
import { PlaylistArt } from '../playlists/PlaylistArt';
import { Link, navigate, useLocation } from '../router';
import { isHttpLink, libraryAlbumIds, resolveLink, search, yearOf, type AlbumHit, type ArtistHit, type SearchScope } from './api';
import { linkTarget, searchHref, typeLine } from './logic';
import { InLibrary, MetadataError, RequestButton } from './parts';
import { matchingPlaylists } from './oneSearch';
import { SearchCombobox } from './Suggestions';

const scopes: { id: SearchScope; label: string }[] = [
  { id: 'artist', label: 'Artists' },
  { id: 'album', label: 'Albums' },
  { id: 'tag', label: 'Tags' },
];

/**
 * One search: as you type, the box suggests the library's artists, albums, tracks and playlists,
 * then what can be requested from MusicBrainz (SearchCombobox); Enter shows the full results in the
 * same order — the library's (with its track list to play), then MusicBrainz's artists, albums or
 * tags (scope tabs, "More results"). A pasted http(s) link is resolved and opens the artist or
 * release it names.
 */
export function SearchScreen() {
  const loc = useLocation();
  const q = loc.query.get('q') ?? '';
  const scopeParam = loc.query.get('scope');
  const scope: SearchScope = scopeParam === 'album' || scopeParam === 'tag' ? scopeParam : 'artist';
  const [typed, setTyped] = useState(q);
  // The box follows the address (Back, a link) when it changes; set while rendering, so words typed
  // before the first effects ran are not replaced by the address's.
  const [shownQ, setShownQ] = useState(q);
  if (shownQ !== q) {
    setShownQ(q);
    setTyped(q);
  }
  // A server without suggestions searches as you type instead.
  const [suggesting, setSuggesting] = useState(true);
  useEffect(() => {
    if (suggesting || typed.trim() === q || isHttpLink(typed)) return;
    const t = setTimeout(() => navigate(searchHref(typed, scope), { replace: true }), 600);
    return () => clearTimeout(t);
  }, [typed, suggesting]);

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
            Search your library and MusicBrainz, or paste a link
          </label>
          <div class="search-row">
            <SearchCombobox
              id="meta-search"
              placeholder="Artist, album, track, playlist, tag, or a Spotify / Deezer / … link"
              value={typed}
              onValue={setTyped}
              autoFocus={!q}
              onAvailable={setSuggesting}
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
      {isHttpLink(q) ? (
        <LinkLookup url={q} />
      ) : q ? (
        <>
          <LibraryResults key={q} q={q} />
          <section class="search-section" aria-labelledby="search-musicbrainz">
            <h2 id="search-musicbrainz">Request from MusicBrainz</h2>
            <nav class="tabs" aria-label="Search in">
              {scopes.map((s) => (
                <Link key={s.id} href={searchHref(q, s.id)} class="tab" aria-current={s.id === scope ? 'page' : undefined}>
                  {s.label}
                </Link>
              ))}
            </nav>
            <Results key={`${scope}:${q}`} q={q} scope={scope} />
          </section>
        </>
      ) : (
        <Empty title="Find music in your library and on MusicBrainz.">Type the name of an artist, album, track, playlist or tag, or paste a link from a streaming service.</Empty>
      )}
    </div>
  );
}

/** How many of each kind the results page shows before "All … in the library". */
const SHOWN = { artists: 12, albums: 12, tracks: 20, playlists: 20 };

/**
 * The library's part of the full results, first: artists, albums, tracks (to play) and playlists
 * matching the words, each with a link to all of them in the library.
 */
function LibraryResults({ q }: { q: string }) {
  const found = useAsync(
    (signal) =>
      Promise.all([
        canonicalPage('artists', 1, { query: q, sort: 'name' }, signal, SHOWN.artists),
        canonicalPage('albums', 1, { query: q, sort: 'artist' }, signal, SHOWN.albums),
        canonicalPage('tracks', 1, { query: q, sort: 'name' }, signal, SHOWN.tracks),
        listPlaylists(signal).then(
          (r) => matchingPlaylists(r.playlists, q, SHOWN.playlists),
          () => [],
        ),
      ]),
    [q],
  );
  const [artists, albums, tracks, playlists] = found.data ?? [];
  const none = found.data && artists!.total + albums!.total + tracks!.total + playlists!.length === 0;
  const all = (tab: string, total: number, noun: string) =>
    total > (SHOWN as Record<string, number>)[tab]! ? (
      <p>
        <Link href={`/library/${tab}?q=${encodeURIComponent(q)}`}>{`All ${total} ${noun} in the library`}</Link>
      </p>
    ) : null;
  return (
    <section class="search-section" aria-labelledby="search-library" aria-busy={found.loading}>
      <h2 id="search-library">In your library</h2>
      {found.loading && !found.data && <Loading label="Searching your library…" />}
      <ErrorMessage error={found.error} onRetry={found.reload} />
      {none && <p class="muted">Nothing in your library matches “{q}”.</p>}
      {artists && artists.items.length > 0 && (
        <div class="search-group" data-group="artists">
          <h3>Artists</h3>
          <ArtistGrid artists={artists.items} />
          {all('artists', artists.total, 'artists')}
        </div>
      )}
      {albums && albums.items.length > 0 && (
        <div class="search-group" data-group="albums">
          <h3>Albums</h3>
          <AlbumGrid albums={albums.items} />
          {all('albums', albums.total, 'albums')}
        </div>
      )}
      {tracks && tracks.items.length > 0 && (
        <div class="search-group" data-group="tracks">
          <h3>Tracks</h3>
          <TrackList tracks={tracks.items} />
          {all('tracks', tracks.total, 'tracks')}
        </div>
      )}
      {playlists && playlists.length > 0 && (
        <div class="search-group" data-group="playlists">
          <h3>Playlists</h3>
          <ul class="grid" aria-label="Playlists">
            {playlists.map((p) => (
              <li key={p.id} class="tile">
                <Link href={`/playlists/${encodeURIComponent(p.id)}`} class="tile-link">
                  <PlaylistArt artwork={p.artwork} name={p.name} size={300} class="tile-art" />
                  <span class="tile-title">{p.name}</span>
                  <span class="tile-sub muted">{`${p.songCount} track${p.songCount === 1 ? '' : 's'}${p.owner ? ` · ${p.owner}` : ''}`}</span>
                </Link>
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
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
    <div aria-busy={state.loading}>
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
    </div>
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
