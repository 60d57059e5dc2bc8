import { useEffect, useState } from 'preact/hooks';
import { Icon } from '../components/icons';
import { Empty, ErrorMessage, Loading, useAsync } from '../components/ui';
import { enqueue, playTracks } from '../player/player';
import { Link, navigate, useLocation } from '../router';
import { isAdmin, session } from '../session';
import { useStore } from '../store';
import { Artwork } from './Artwork';
import { canonicalPage, loadFavorites } from './model';
import { AlbumGrid, ArtistGrid, FavoriteButton, PageFooter, TrackList, artistCounts, count } from './parts';
import { usePaged } from './usePaged';

type Tab = 'artists' | 'albums' | 'tracks' | 'genres';
const tabs: { id: Tab; label: string }[] = [
  { id: 'artists', label: 'Artists' },
  { id: 'albums', label: 'Albums' },
  { id: 'tracks', label: 'Tracks' },
  { id: 'genres', label: 'Genres' },
];

/** Artists, albums, tracks and genres with search and a genre filter kept in the address. */
export function LibraryScreen({ tab }: { tab: Tab }) {
  const loc = useLocation();
  const q = loc.query.get('q') ?? '';
  const genre = loc.query.get('genre') ?? '';
  const [typed, setTyped] = useState(q);
  useEffect(() => setTyped(q), [q]);
  useEffect(() => {
    if (typed === q) return;
    const t = setTimeout(() => navigate(libraryHref(tab, typed, genre), { replace: true }), 300);
    return () => clearTimeout(t);
  }, [typed]);

  const genres = useAsync((signal) => canonicalPage('genres', 1, { sort: 'name' }, signal, 100), []);

  return (
    <div class="library">
      <div class="library-head">
        <h1>Library</h1>
        <form
          class="search"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            navigate(libraryHref(tab === 'genres' ? 'artists' : tab, typed, genre), { replace: true });
          }}
        >
          <label for="library-search" class="visually-hidden">
            Search the library
          </label>
          <input id="library-search" type="search" placeholder="Search artists, albums, tracks" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
        </form>
        {tab !== 'genres' && (
          <div class="genre-filter">
            <label for="genre-filter">Genre</label>
            <select id="genre-filter" value={genre} onChange={(e) => navigate(libraryHref(tab, q, e.currentTarget.value), { replace: true })}>
              <option value="">All genres</option>
              {(genres.data?.items ?? []).map((g) => (
                <option key={g.id} value={g.name}>
                  {g.name}
                </option>
              ))}
            </select>
          </div>
        )}
      </div>
      <nav class="tabs" aria-label="Library sections">
        {tabs.map((t) => (
          <Link key={t.id} href={libraryHref(t.id, q, t.id === 'genres' ? '' : genre)} class="tab" aria-current={t.id === tab ? 'page' : undefined}>
            {t.label}
          </Link>
        ))}
        <Link href="/library/favorites" class="tab">
          Favorites
        </Link>
      </nav>
      {tab === 'artists' && <Artists q={q} genre={genre} />}
      {tab === 'albums' && <Albums q={q} genre={genre} />}
      {tab === 'tracks' && <Tracks q={q} genre={genre} />}
      {tab === 'genres' && <Genres q={q} />}
    </div>
  );
}

function libraryHref(tab: Tab, q: string, genre: string): string {
  const params = new URLSearchParams();
  if (q.trim()) params.set('q', q.trim());
  if (genre) params.set('genre', genre);
  const qs = params.toString();
  return `/library/${tab}${qs ? `?${qs}` : ''}`;
}

function EmptyLibrary({ q, genre, noun }: { q: string; genre: string; noun: string }) {
  const user = useStore(session).user;
  if (q || genre) return <Empty title={`No ${noun} match${q ? ` “${q}”` : ''}${genre ? ` in ${genre}` : ''}.`} />;
  return (
    <Empty title={`No ${noun} yet.`}>
      {isAdmin(user) ? (
        <p>
          Add a music folder and scan it in <Link href="/settings/library">Settings → Library</Link>.
        </p>
      ) : (
        <p>Ask an administrator to add music folders.</p>
      )}
    </Empty>
  );
}

function Artists({ q, genre }: { q: string; genre: string }) {
  const paged = usePaged('artists', { query: q, genre, sort: 'name' });
  return (
    <section aria-label="Artists" aria-busy={paged.loading}>
      <ResultCount total={paged.total} noun="artist" shown={!paged.loading || paged.items.length > 0} />
      {paged.items.length > 0 && <ArtistGrid artists={paged.items} />}
      {!paged.loading && !paged.error && paged.items.length === 0 && <EmptyLibrary q={q} genre={genre} noun="artists" />}
      <PageFooter paged={paged} noun="artists" />
    </section>
  );
}

function Albums({ q, genre }: { q: string; genre: string }) {
  const paged = usePaged('albums', { query: q, genre, sort: 'artist' });
  return (
    <section aria-label="Albums" aria-busy={paged.loading}>
      <ResultCount total={paged.total} noun="album" shown={!paged.loading || paged.items.length > 0} />
      {paged.items.length > 0 && <AlbumGrid albums={paged.items} />}
      {!paged.loading && !paged.error && paged.items.length === 0 && <EmptyLibrary q={q} genre={genre} noun="albums" />}
      <PageFooter paged={paged} noun="albums" />
    </section>
  );
}

function Tracks({ q, genre }: { q: string; genre: string }) {
  const paged = usePaged('tracks', { query: q, genre, sort: q ? 'name' : 'artist' });
  return (
    <section aria-label="Tracks" aria-busy={paged.loading}>
      <div class="list-actions">
        <ResultCount total={paged.total} noun="track" shown={!paged.loading || paged.items.length > 0} />
        {paged.items.length > 0 && (
          <button type="button" class="primary" onClick={() => playTracks(paged.items)}>
            <Icon name="play" size={16} /> Play these
          </button>
        )}
      </div>
      {paged.items.length > 0 && <TrackList tracks={paged.items} />}
      {!paged.loading && !paged.error && paged.items.length === 0 && <EmptyLibrary q={q} genre={genre} noun="tracks" />}
      <PageFooter paged={paged} noun="tracks" />
    </section>
  );
}

function Genres({ q }: { q: string }) {
  const paged = usePaged('genres', { query: q, sort: 'name' }, 100);
  return (
    <section aria-label="Genres" aria-busy={paged.loading}>
      {paged.items.length > 0 && (
        <ul class="genre-list">
          {paged.items.map((g) => (
            <li key={g.id}>
              <Link href={libraryHref('albums', '', g.name)} class="genre-chip">
                <span>{g.name}</span>
                <span class="muted">{count(g.albumCount, 'album')}</span>
              </Link>
            </li>
          ))}
        </ul>
      )}
      {!paged.loading && !paged.error && paged.items.length === 0 && <EmptyLibrary q={q} genre="" noun="genres" />}
      <PageFooter paged={paged} noun="genres" />
    </section>
  );
}

function ResultCount({ total, noun, shown }: { total: number; noun: string; shown: boolean }) {
  if (!shown) return null;
  return (
    <p class="muted result-count" aria-live="polite">
      {count(total, noun)}
    </p>
  );
}

export function ArtistScreen({ id }: { id: number }) {
  const artist = useAsync(async (signal) => (await canonicalPage('artists', 1, { artistId: id }, signal, 1)).items[0] ?? null, [id]);
  const albums = usePaged('albums', { artistId: id, sort: 'year' });
  const tracks = usePaged('tracks', { artistId: id, sort: 'album' }, 100);
  // Other artists' albums (compilations) with this artist's tracks on them.
  const appearsOn = usePaged('albums', { appearsOn: id, sort: 'year' });
  const guestTracks = usePaged('tracks', { appearsOn: id, sort: 'album' }, 100);
  if (artist.loading && !artist.data) return <Loading label="Loading the artist…" />;
  if (artist.error) return <ErrorMessage error={artist.error} onRetry={artist.reload} />;
  const a = artist.data;
  if (!a) return <Empty title="This artist is not in the library." />;
  return (
    <div class="detail">
      <header class="detail-head">
        <Artwork url={a.imageUrl} size={300} label={a.name} class="detail-art round" />
        <div>
          <p class="muted eyebrow">Artist</p>
          <h1>{a.name}</h1>
          <p class="muted">{artistCounts(a.statistics, true)}</p>
          <div class="detail-actions">
            <button type="button" class="primary" disabled={tracks.items.length === 0} onClick={() => playTracks(tracks.items)}>
              <Icon name="play" size={16} /> Play
            </button>
            <FavoriteButton kind="artist" id={a.id} name={a.name} favorite={a.userFavorite === true} />
            {a.mbid && (
              <Link href={`/artist/${a.mbid}`} class="button-link">
                All releases
              </Link>
            )}
          </div>
        </div>
      </header>
      {(albums.items.length > 0 || appearsOn.items.length === 0) && (
        <section aria-labelledby="artist-albums">
          <h2 id="artist-albums">Albums</h2>
          {albums.items.length > 0 && <AlbumGrid albums={albums.items} showArtist={false} />}
          {!albums.loading && !albums.error && albums.items.length === 0 && !appearsOn.loading && <p class="muted">No albums.</p>}
          <PageFooter paged={albums} noun="albums" />
        </section>
      )}
      {appearsOn.items.length > 0 && (
        <section aria-labelledby="artist-appears-on">
          <h2 id="artist-appears-on">Appears on</h2>
          <AlbumGrid albums={appearsOn.items} label="Appears on" />
          <PageFooter paged={appearsOn} noun="albums" />
          {guestTracks.items.length > 0 && (
            <>
              <h3>{`Tracks on other artists' albums`}</h3>
              <TrackList tracks={guestTracks.items} label={`Tracks of ${a.name} on other artists' albums`} />
            </>
          )}
          <PageFooter paged={guestTracks} noun="tracks" />
        </section>
      )}
    </div>
  );
}

export function AlbumScreen({ id }: { id: number }) {
  const album = useAsync(async (signal) => (await canonicalPage('albums', 1, { albumId: id }, signal, 1)).items[0] ?? null, [id]);
  const tracks = usePaged('tracks', { albumId: id }, 100);
  if (album.loading && !album.data) return <Loading label="Loading the album…" />;
  if (album.error) return <ErrorMessage error={album.error} onRetry={album.reload} />;
  const a = album.data;
  if (!a) return <Empty title="This album is not in the library." />;
  const minutes = Math.round(tracks.items.reduce((sum, t) => sum + (t.durationMs ?? 0), 0) / 60000);
  return (
    <div class="detail">
      <header class="detail-head">
        <Artwork url={a.imageUrl} size={300} label={a.title} class="detail-art" />
        <div>
          <p class="muted eyebrow">Album</p>
          <h1>{a.title}</h1>
          <p>
            {a.artistId ? <Link href={`/library/artists/${a.artistId}`}>{a.artistName}</Link> : a.artistName}
            {a.year ? <span class="muted"> · {a.year}</span> : null}
          </p>
          <p class="muted">
            {count(a.statistics?.trackCount ?? tracks.total, 'track')}
            {minutes > 0 ? ` · ${minutes} min` : ''}
          </p>
          <div class="detail-actions">
            <button type="button" class="primary" disabled={tracks.items.length === 0} onClick={() => playTracks(tracks.items)}>
              <Icon name="play" size={16} /> Play album
            </button>
            <button type="button" disabled={tracks.items.length === 0} onClick={() => enqueue(tracks.items)}>
              Add to queue
            </button>
            <FavoriteButton kind="album" id={a.id} name={a.title} favorite={a.userFavorite === true} />
            {a.mbid && (
              <Link href={`/release/${a.mbid}`} class="button-link">
                Release details
              </Link>
            )}
          </div>
        </div>
      </header>
      {tracks.items.length > 0 && <TrackList tracks={tracks.items} showAlbum={false} numbered label={`Tracks of ${a.title}`} />}
      <PageFooter paged={tracks} noun="tracks" />
    </div>
  );
}

export function FavoritesScreen() {
  const favorites = useAsync((signal) => loadFavorites(signal), []);
  const f = favorites.data;
  return (
    <div class="library">
      <div class="library-head">
        <h1>Favorites</h1>
      </div>
      <nav class="tabs" aria-label="Library sections">
        {tabs.map((t) => (
          <Link key={t.id} href={`/library/${t.id}`} class="tab">
            {t.label}
          </Link>
        ))}
        <Link href="/library/favorites" class="tab">
          Favorites
        </Link>
      </nav>
      {favorites.loading && !f && <Loading label="Loading favorites…" />}
      <ErrorMessage error={favorites.error} onRetry={favorites.reload} />
      {f && f.artists.length + f.albums.length + f.tracks.length === 0 && (
        <Empty title="No favorites yet.">
          <p>Use the star button on an artist, album or track to keep it here.</p>
        </Empty>
      )}
      {f && f.tracks.length > 0 && (
        <section aria-labelledby="fav-tracks">
          <div class="list-actions">
            <h2 id="fav-tracks">Tracks</h2>
            <button type="button" class="primary" onClick={() => playTracks(f.tracks)}>
              <Icon name="play" size={16} /> Play
            </button>
          </div>
          <TrackList tracks={f.tracks} label="Favorite tracks" />
        </section>
      )}
      {f && f.albums.length > 0 && (
        <section aria-labelledby="fav-albums">
          <h2 id="fav-albums">Albums</h2>
          <AlbumGrid albums={f.albums} />
        </section>
      )}
      {f && f.artists.length > 0 && (
        <section aria-labelledby="fav-artists">
          <h2 id="fav-artists">Artists</h2>
          <ArtistGrid artists={f.artists} />
        </section>
      )}
    </div>
  );
}
