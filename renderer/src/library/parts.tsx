import { useState } from 'preact/hooks';
import { errorText } from '../api';
import { Icon } from '../components/icons';
import { ErrorMessage, Loading, formatDuration } from '../components/ui';
import { playTracks, player } from '../player/player';
import { AddToPlaylist } from '../playlists/AddToPlaylist';
import { addedText } from '../playlists/logic';
import { Link } from '../router';
import { useStore } from '../store';
import { Artwork } from './Artwork';
import { setFavorite, type Album, type Artist, type FavoriteKind, type Track } from './model';
import { useSentinel, type Paged } from './usePaged';

export function FavoriteButton({ kind, id, name, favorite, onChange }: { kind: FavoriteKind; id: number; name: string; favorite: boolean; onChange?: (favorite: boolean) => void }) {
  const [on, setOn] = useState(favorite);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const toggle = async () => {
    setBusy(true);
    setError(null);
    try {
      await setFavorite(kind, id, !on);
      setOn(!on);
      onChange?.(!on);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <button
      type="button"
      class={`icon-button favorite ${on ? 'on' : ''}`}
      aria-pressed={on}
      aria-label={on ? `Remove ${name} from favorites` : `Add ${name} to favorites`}
      title={error ?? (on ? 'Favorite' : 'Add to favorites')}
      disabled={busy}
      onClick={() => void toggle()}
    >
      <Icon name="star" filled={on} />
    </button>
  );
}

/** The end of a paged list: a spinner, an error with retry, or a "Load more" button and scroll sentinel. */
export function PageFooter<T>({ paged, noun }: { paged: Paged<T>; noun: string }) {
  const sentinel = useSentinel(paged.loadMore, paged.hasMore && !paged.loading && !paged.error);
  return (
    <div class="page-footer">
      {paged.error ? <ErrorMessage error={paged.error} onRetry={paged.items.length ? paged.loadMore : paged.reload} /> : null}
      {paged.loading && <Loading label={paged.items.length ? `Loading more ${noun}…` : `Loading ${noun}…`} />}
      {!paged.loading && paged.hasMore && !paged.error && paged.items.length > 0 && (
        <button type="button" onClick={paged.loadMore}>
          Load more {noun}
        </button>
      )}
      <div ref={sentinel} aria-hidden="true" />
    </div>
  );
}

export function ArtistGrid({ artists }: { artists: Artist[] }) {
  return (
    <ul class="grid" aria-label="Artists">
      {artists.map((a) => (
        <li key={a.id} class="tile">
          <Link href={`/library/artists/${a.id}`} class="tile-link">
            <Artwork url={a.imageUrl} size={300} label={a.name} class="tile-art round" />
            <span class="tile-title">{a.name}</span>
            <span class="tile-sub muted">{artistCounts(a.statistics)}</span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

export function AlbumGrid({ albums, showArtist = true, label = 'Albums' }: { albums: Album[]; showArtist?: boolean; label?: string }) {
  return (
    <ul class="grid" aria-label={label}>
      {albums.map((a) => (
        <li key={a.id} class="tile">
          <Link href={`/library/albums/${a.id}`} class="tile-link">
            <Artwork url={a.imageUrl} size={300} label={a.title} class="tile-art" />
            <span class="tile-title">{a.title}</span>
            <span class="tile-sub muted">{[showArtist ? a.artistName : null, a.year].filter(Boolean).join(' · ')}</span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

/**
 * The library's track table (album, artist, search and favourites pages): play, favourite, add one
 * track to a playlist, or tick several and add them at once.
 */
export function TrackList({ tracks, showAlbum = true, numbered = false, label = 'Tracks' }: { tracks: Track[]; showAlbum?: boolean; numbered?: boolean; label?: string }) {
  const current = useStore(player);
  const playingId = current.queue[current.index]?.id;
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  /** What adding the selection did (the selection bar, and the picker's own note with it, goes away). */
  const [added, setAdded] = useState<string | null>(null);
  const chosen = tracks.filter((t) => selected.has(t.id));
  const allChosen = tracks.length > 0 && chosen.length === tracks.length;
  const toggle = (id: number, on: boolean) => {
    const next = new Set(selected);
    setAdded(null);
    if (on) next.add(id);
    else next.delete(id);
    setSelected(next);
  };
  return (
    <div class="track-list">
      {added && chosen.length === 0 && (
        <p class="selection-note" role="status">
          {added}
        </p>
      )}
      {chosen.length > 0 && (
        <div class="selection-bar" role="group" aria-label="Selected tracks">
          <span>{count(chosen.length, 'track')} selected</span>
          <AddToPlaylist trackIds={() => chosen.map((t) => t.id)} text={`Add ${chosen.length} to playlist`} onDone={(p, n) => {
              setAdded(addedText(n, p.name));
              setSelected(new Set());
            }}
          />
          <button type="button" class="link-button" onClick={() => setSelected(new Set())}>
            Clear selection
          </button>
        </div>
      )}
      <table class="tracks">
        <caption class="visually-hidden">{label}</caption>
        <thead>
          <tr>
            <th scope="col" class="col-select">
              <input
                type="checkbox"
                aria-label={allChosen ? 'Unselect all tracks' : 'Select all tracks'}
                checked={allChosen}
                onChange={(e) => {
                  setAdded(null);
                  setSelected(e.currentTarget.checked ? new Set(tracks.map((t) => t.id)) : new Set());
                }}
              />
            </th>
            <th scope="col" class="col-play">
              <span class="visually-hidden">Play</span>
            </th>
            {numbered && (
              <th scope="col" class="col-num">
                #
              </th>
            )}
            <th scope="col">Title</th>
            <th scope="col" class="col-artist">
              Artist
            </th>
            {showAlbum && (
              <th scope="col" class="col-album">
                Album
              </th>
            )}
            <th scope="col" class="col-time">
              Time
            </th>
            <th scope="col" class="col-fav">
              <span class="visually-hidden">Favorite</span>
            </th>
            <th scope="col" class="col-add">
              <span class="visually-hidden">Add to playlist</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {tracks.map((t, i) => (
            <tr key={t.id} class={[t.id === playingId ? 'playing' : '', selected.has(t.id) ? 'selected' : ''].join(' ').trim()} aria-current={t.id === playingId ? 'true' : undefined}>
              <td class="col-select">
                <input type="checkbox" aria-label={`Select ${t.title}`} checked={selected.has(t.id)} onChange={(e) => toggle(t.id, e.currentTarget.checked)} />
              </td>
              <td class="col-play">
                <button type="button" class="icon-button" aria-label={`Play ${t.title}`} disabled={t.available === false} onClick={() => playTracks(tracks, i)}>
                  <Icon name={t.id === playingId && current.playing ? 'equalizer' : 'play'} size={18} />
                </button>
              </td>
              {numbered && <td class="col-num muted">{t.trackNumber || i + 1}</td>}
              <td class="col-title">
                <span class="track-title">{t.title}</span>
                <span class="track-sub muted">{t.artistName}</span>
              </td>
              <td class="col-artist">{t.artistId ? <Link href={`/library/artists/${t.artistId}`}>{t.artistName}</Link> : t.artistName}</td>
              {showAlbum && <td class="col-album">{t.albumId ? <Link href={`/library/albums/${t.albumId}`}>{t.albumTitle}</Link> : t.albumTitle}</td>}
              <td class="col-time muted">{formatDuration((t.durationMs ?? 0) / 1000)}</td>
              <td class="col-fav">
                <FavoriteButton kind="track" id={t.id} name={t.title} favorite={t.userFavorite === true} />
              </td>
              <td class="col-add">
                <AddToPlaylist trackIds={[t.id]} compact label={`Add ${t.title} to a playlist`} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** "3 albums", "0 albums · appears on 5": own albums, and other artists' albums it has tracks on. */
export function artistCounts(s: Artist['statistics'], withTracks = false): string {
  if (!s) return '';
  const parts = [count(s.albumCount, 'album')];
  if (s.appearsOnCount) parts.push(`appears on ${s.appearsOnCount}`);
  if (withTracks) parts.push(count(s.trackCount, 'track'));
  return parts.filter(Boolean).join(' · ');
}

export function count(n: number | undefined, noun: string): string {
  if (n === undefined) return '';
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
