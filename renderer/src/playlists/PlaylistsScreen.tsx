import { useEffect, useRef, useState } from 'preact/hooks';
import { isNotFound } from '../api';
import { Empty, ErrorMessage, Loading, Notice, formatDuration, useAction, useAsync } from '../components/ui';
import { Link, navigate } from '../router';
import { AddToPlaylist } from './AddToPlaylist';
import { createPlaylist, deletePlaylist, getPlaylist, listPlaylists, removeEntry, renamePlaylist, setTracks } from './api';
import { checkName, ownershipText, playableTracks, summaryText, trackIdsOf, withEntryMoved, withoutEntry, type PlaylistArtwork } from './logic';
import { PlaylistArt, type Note } from './PlaylistArt';
import { ConfirmDelete, PlaylistDetail } from './PlaylistDetail';
import { SharedPlaylistsSection } from './SharedPlaylists';
import './playlists.css';

/** The user's static playlists (and everyone's public ones), with a form to start a new one; then the shared playlists. */
export function PlaylistsScreen() {
  const lists = useAsync((signal) => listPlaylists(signal), []);
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const create = useAction(async () => {
    const checked = checkName(name);
    if (!checked.ok) return setProblem(checked.message);
    setProblem(null);
    const created = await createPlaylist(checked.name);
    setName('');
    navigate(`/playlists/${created.id}`);
  });
  const playlists = lists.data?.playlists ?? [];
  return (
    <div class="playlists">
      <div class="list-actions">
        <h1>Playlists</h1>
      </div>
      <form
        class="playlist-create"
        onSubmit={(e) => {
          e.preventDefault();
          void create.trigger();
        }}
      >
        <label for="new-playlist">New playlist</label>
        <input id="new-playlist" type="text" value={name} maxLength={200} placeholder="Name" onInput={(e) => setName(e.currentTarget.value)} />
        <button type="submit" class="primary" disabled={create.busy}>
          Create
        </button>
      </form>
      {problem && <Notice tone="warn">{problem}</Notice>}
      <ErrorMessage error={create.error} />
      {lists.loading && !lists.data && <Loading label="Loading your playlists…" />}
      <ErrorMessage error={lists.error} onRetry={lists.reload} />
      {lists.data && playlists.length === 0 && (
        <Empty title="No playlists yet.">
          Create one here, or open an album and use “Add to playlist” on its tracks. Playlists made in a Subsonic app show up here too.
        </Empty>
      )}
      {playlists.length > 0 && (
        <ul class="grid" aria-label="Playlists">
          {playlists.map((p) => (
            <li key={p.id} class="tile">
              <Link href={`/playlists/${p.id}`} class="tile-link">
                <PlaylistArt artwork={p.artwork} name={p.name} size={300} class="tile-art" />
                <span class="tile-title">{p.name}</span>
                <span class="tile-sub muted">
                  {summaryText(p)} · {ownershipText(p)}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
      <SharedPlaylistsSection />
    </div>
  );
}

/** One playlist: play it, rename or delete it, remove and reorder tracks (buttons, Alt+↑/↓, drag), and manage its artwork. */
export function PlaylistScreen({ id }: { id: string }) {
  const loaded = useAsync((signal) => getPlaylist(id, signal), [id]);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [note, setNote] = useState<Note | null>(null);

  const detail = loaded.data;
  const setArtwork = (artwork: PlaylistArtwork | null) => detail && loaded.setData({ ...detail, artwork });

  const rename = useAction(async () => {
    const checked = checkName(renaming ?? '');
    if (!checked.ok) return setNote({ tone: 'warn', text: checked.message });
    const answer = await renamePlaylist(id, checked.name);
    loaded.setData(answer);
    setRenaming(null);
    setNote(null);
  });
  const remove = useAction(async () => {
    await deletePlaylist(id);
    navigate('/playlists');
  });
  const dropEntry = useAction(async (position: number) => {
    if (!detail) return;
    loaded.setData(withoutEntry(detail, position));
    try {
      loaded.setData(await removeEntry(id, position));
    } catch (err) {
      loaded.reload();
      throw err;
    }
  });
  const [dragFrom, setDragFrom] = useState<number | null>(null);
  /** Where the focus goes after a move: the moved row, or its same Move button when that was used (and is still enabled). */
  const focusAfterMove = useRef<{ index: number; control: 'up' | 'down' | null } | null>(null);
  const table = useRef<HTMLTableElement>(null);
  const move = useAction(async (from: number, to: number) => {
    if (!detail) return;
    const moved = withEntryMoved(detail, from, to);
    if (moved === detail) return;
    loaded.setData(moved);
    try {
      loaded.setData(await setTracks(id, trackIdsOf(moved)));
    } catch (err) {
      loaded.reload();
      throw err;
    }
  });
  const moveBy = (from: number, step: number, control: 'up' | 'down' | null) => {
    if (move.busy || !detail) return;
    const to = from + step;
    if (to < 0 || to >= detail.tracks.length) return;
    focusAfterMove.current = { index: to, control };
    void move.trigger(from, to);
  };
  useEffect(() => {
    const at = focusAfterMove.current;
    if (!at || move.busy) return;
    focusAfterMove.current = null;
    const row = table.current?.querySelector<HTMLElement>(`tr[data-index="${at.index}"]`);
    const button = at.control ? row?.querySelector<HTMLButtonElement>(`button[data-move="${at.control}"]`) : null;
    (button && !button.disabled ? button : row)?.focus();
  });
  if (loaded.loading && !detail) return <Loading label="Loading the playlist…" />;
  if (loaded.error && isNotFound(loaded.error))
    return (
      <Empty title="This playlist does not exist, or it is not shared with you.">
        <Link href="/playlists">Back to playlists</Link>
      </Empty>
    );
  if (loaded.error) return <ErrorMessage error={loaded.error} onRetry={loaded.reload} />;
  if (!detail) return null;
  const tracks = playableTracks(detail);

  return (
    <PlaylistDetail
      id={id}
      name={detail.name}
      eyebrow="Playlist"
      class=""
      artwork={detail.artwork}
      editable={detail.editable}
      onArtwork={setArtwork}
      note={note}
      onNote={setNote}
      heading={
        renaming === null ? undefined : (
          <form
            class="playlist-rename"
            onSubmit={(e) => {
              e.preventDefault();
              void rename.trigger();
            }}
          >
            <label for="playlist-name" class="visually-hidden">
              Playlist name
            </label>
            <input id="playlist-name" type="text" value={renaming} maxLength={200} autoFocus onInput={(e) => setRenaming(e.currentTarget.value)} />
            <button type="submit" class="primary" disabled={rename.busy}>
              Save
            </button>
            <button type="button" onClick={() => setRenaming(null)}>
              Cancel
            </button>
          </form>
        )
      }
      about={
        <>
          {detail.comment && <p>{detail.comment}</p>}
          <p class="muted">
            {summaryText(detail)} · {ownershipText(detail)}
          </p>
        </>
      }
      tracks={tracks}
      actions={
        <>
          {detail.editable && renaming === null && (
            <button type="button" onClick={() => setRenaming(detail.name)}>
              Rename
            </button>
          )}
          {detail.editable && <ConfirmDelete name={detail.name} busy={remove.busy} onDelete={() => void remove.trigger()} />}
        </>
      }
      errors={[rename.error, remove.error, dropEntry.error, move.error]}
      empty={{
        title: 'No tracks in this playlist.',
        text: 'Open an album, artist or search result and use “Add to playlist” on its tracks (tick several to add them at once), or save the queue as a playlist from the player.',
      }}
      columns={[
        { className: 'col-artist', label: 'Artist' },
        { className: 'col-album', label: 'Album' },
        { className: 'col-time', label: 'Time' },
        { className: 'col-add', label: 'Add to playlist', hidden: true },
        ...(detail.editable ? [{ className: 'col-move', label: 'Move', hidden: true }] : []),
      ]}
      action={detail.editable ? 'Remove' : undefined}
      tableRef={table}
      rows={detail.tracks.map(({ position, track: t }, i) => ({
        key: `${position}-${t.id}`,
        title: t.title,
        artistName: t.artistName,
        trackId: t.id,
        playAt: t.available === false ? -1 : i,
        rowProps: {
          class: dragFrom === i ? 'dragging' : '',
          'data-index': i,
          tabIndex: detail.editable ? 0 : undefined,
          'aria-keyshortcuts': detail.editable ? 'Alt+ArrowUp Alt+ArrowDown' : undefined,
          draggable: detail.editable,
          onKeyDown: (e) => {
            if (!detail.editable || !e.altKey || (e.key !== 'ArrowUp' && e.key !== 'ArrowDown')) return;
            e.preventDefault();
            moveBy(i, e.key === 'ArrowUp' ? -1 : 1, null);
          },
          onDragStart: (e) => {
            if (!detail.editable) return;
            setDragFrom(i);
            e.dataTransfer?.setData('text/plain', String(i));
            if (e.dataTransfer) e.dataTransfer.effectAllowed = 'move';
          },
          onDragOver: (e) => {
            if (dragFrom !== null) e.preventDefault();
          },
          onDrop: (e) => {
            e.preventDefault();
            if (dragFrom !== null && !move.busy) void move.trigger(dragFrom, i);
            setDragFrom(null);
          },
          onDragEnd: () => setDragFrom(null),
        },
        cells: (
          <>
            <td class="col-artist">{t.artistId ? <Link href={`/library/artists/${t.artistId}`}>{t.artistName}</Link> : t.artistName}</td>
            <td class="col-album">{t.albumId ? <Link href={`/library/albums/${t.albumId}`}>{t.albumTitle}</Link> : t.albumTitle}</td>
            <td class="col-time muted">{formatDuration((t.durationMs ?? 0) / 1000)}</td>
            <td class="col-add">
              <AddToPlaylist trackIds={[t.id]} compact label={`Add ${t.title} to a playlist`} />
            </td>
            {detail.editable && (
              <td class="col-move">
                <button type="button" class="link-button" disabled={move.busy || i === 0} data-move="up" aria-label={`Move ${t.title} up`} onClick={() => moveBy(i, -1, 'up')}>
                  ↑
                </button>
                <button
                  type="button"
                  class="link-button"
                  disabled={move.busy || i === detail.tracks.length - 1}
                  data-move="down"
                  aria-label={`Move ${t.title} down`}
                  onClick={() => moveBy(i, 1, 'down')}
                >
                  ↓
                </button>
              </td>
            )}
            {detail.editable && (
              <td class="col-remove">
                <button type="button" class="link-button" disabled={dropEntry.busy} aria-label={`Remove ${t.title} from the playlist`} onClick={() => void dropEntry.trigger(position)}>
                  Remove
                </button>
              </td>
            )}
          </>
        ),
      }))}
    />
  );
}
