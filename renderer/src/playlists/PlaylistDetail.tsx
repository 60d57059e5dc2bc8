import type { ComponentChildren, HTMLAttributes, Ref } from 'preact';
import { useState } from 'preact/hooks';
import { Icon } from '../components/icons';
import { Empty, ErrorMessage, Notice } from '../components/ui';
import type { Track } from '../library/model';
import { enqueue, player, playTracks } from '../player/player';
import { Link } from '../router';
import { useStore } from '../store';
import type { PlaylistArtwork } from './logic';
import { ArtworkBox, type Note } from './PlaylistArt';
import { TrackTableHead, type TrackColumn } from './TrackTableHead';

/** One row of a playlist's track table: Play, #, Title come from here, the rest from the screen. */
export interface DetailRow {
  key: string | number;
  title: string;
  artistName: string;
  /** The library track, for the "playing" mark; null when the entry has none yet. */
  trackId: number | null;
  /** Where Play starts among the playlist's playable tracks; -1 when this one cannot be played. */
  playAt: number;
  /** The row's own attributes: its class, data-*, keyboard and drag handlers. */
  rowProps?: HTMLAttributes<HTMLTableRowElement>;
  /** The cells after Title, one per column and the action column. */
  cells: ComponentChildren;
}

/**
 * A playlist's page, static or shared: back link, artwork, name, what the screen says about it, Play
 * and Add to queue, the screen's own actions, notes and errors, then the track table (or why it is
 * empty). Each screen fills in what only it has: reordering for static playlists, the state of each
 * entry and sync for shared ones.
 */
export function PlaylistDetail(props: {
  id: string;
  name: string;
  /** Above the name: "Playlist" or "Shared playlist". */
  eyebrow: string;
  class: string;
  artwork: PlaylistArtwork | null;
  /** The caller may change the artwork. */
  editable: boolean;
  onArtwork: (artwork: PlaylistArtwork | null) => void;
  note: Note | null;
  onNote: (note: Note) => void;
  /** The name as a heading, or the screen's rename form. */
  heading?: ComponentChildren;
  /** The lines under the name: comment or description, counts, owner, sync. */
  about: ComponentChildren;
  /** What Play and Add to queue play. */
  tracks: Track[];
  /** More buttons after Play and Add to queue. */
  actions?: ComponentChildren;
  /** Below the action row (the shared playlist's editing group). */
  moreActions?: ComponentChildren;
  /** Between the header and the notes (an edit form). */
  afterHeader?: ComponentChildren;
  /** The failures of the screen's actions. */
  errors: unknown[];
  /** Just above the table (an add-a-track form). */
  beforeTable?: ComponentChildren;
  empty: { title: string; text: ComponentChildren };
  columns: TrackColumn[];
  /** The screen-reader label of the last column, when the rows have actions. */
  action?: string | undefined;
  rows: DetailRow[];
  tableRef?: Ref<HTMLTableElement>;
}) {
  const current = useStore(player);
  const playingId = current.queue[current.index]?.id;
  const p = props;
  return (
    <div class={`detail playlist-detail ${p.class}`.trim()}>
      <p>
        <Link href="/playlists">← Playlists</Link>
      </p>
      <header class="detail-head">
        <ArtworkBox id={p.id} name={p.name} artwork={p.artwork} editable={p.editable} onChange={p.onArtwork} onNote={p.onNote} />
        <div>
          <p class="muted eyebrow">{p.eyebrow}</p>
          {p.heading ?? <h1>{p.name}</h1>}
          {p.about}
          <div class="detail-actions">
            <button type="button" class="primary" disabled={p.tracks.length === 0} onClick={() => playTracks(p.tracks)}>
              <Icon name="play" size={16} /> Play
            </button>
            <button type="button" disabled={p.tracks.length === 0} onClick={() => enqueue(p.tracks)}>
              Add to queue
            </button>
            {p.actions}
          </div>
          {p.moreActions}
        </div>
      </header>
      {p.afterHeader}
      {p.note && <Notice tone={p.note.tone}>{p.note.text}</Notice>}
      {p.errors.map((error, i) => (
        <ErrorMessage key={i} error={error} />
      ))}
      {p.beforeTable}
      {p.rows.length === 0 ? (
        <Empty title={p.empty.title}>{p.empty.text}</Empty>
      ) : (
        <table class="tracks" ref={p.tableRef}>
          <caption class="visually-hidden">Tracks of {p.name}</caption>
          <TrackTableHead columns={p.columns} action={p.action} />
          <tbody>
            {p.rows.map((r, i) => {
              const playing = r.trackId !== null && r.trackId === playingId;
              const extra = r.rowProps?.class;
              return (
                <tr key={r.key} {...r.rowProps} class={[playing ? 'playing' : '', typeof extra === 'string' ? extra : ''].join(' ').trim()}>
                  <td class="col-play">
                    <button type="button" class="icon-button" aria-label={`Play ${r.title}`} disabled={r.playAt < 0} onClick={() => playTracks(p.tracks, r.playAt)}>
                      <Icon name={playing && current.playing ? 'equalizer' : 'play'} size={18} />
                    </button>
                  </td>
                  <td class="col-num muted">{i + 1}</td>
                  <td class="col-title">
                    <span class="track-title">{r.title}</span>
                    <span class="track-sub muted">{r.artistName}</span>
                  </td>
                  {r.cells}
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** Delete…, then the confirming group: Delete “name” / Keep it. */
export function ConfirmDelete({ name, busy, onDelete }: { name: string; busy: boolean; onDelete: () => void }) {
  const [asking, setAsking] = useState(false);
  return asking ? (
    <span class="confirm-delete" role="group" aria-label="Confirm deletion">
      <button type="button" class="danger" disabled={busy} onClick={onDelete}>
        Delete “{name}”
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Keep it
      </button>
    </span>
  ) : (
    <button type="button" class="danger" onClick={() => setAsking(true)}>
      Delete…
    </button>
  );
}
