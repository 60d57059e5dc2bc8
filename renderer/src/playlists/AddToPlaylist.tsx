import { useEffect, useRef, useState } from 'preact/hooks';
import { Icon } from '../components/icons';
import { ErrorMessage, Loading } from '../components/ui';
import { addTracks, createPlaylist, listPlaylists } from './api';
import { addedText, checkName, type PlaylistSummary } from './logic';
import './playlists.css';

/**
 * "Add to playlist": a button that opens a picker of the caller's own static playlists plus
 * "New playlist…" (asks a name and creates it with the tracks). Used by the library's track rows
 * (one track or the selected ones), the playlist page and the queue panel ("Save queue as playlist").
 */
export function AddToPlaylist({
  trackIds,
  text = 'Add to playlist',
  label,
  compact = false,
  disabled = false,
  onDone,
}: {
  /** The tracks to add, in order; read when a playlist is chosen. */
  trackIds: number[] | (() => number[]);
  /** The button's visible words (hidden behind a + icon when compact). */
  text?: string;
  /** The button's accessible name when it differs from `text` ("Add Low Tide to a playlist"). */
  label?: string;
  compact?: boolean;
  disabled?: boolean;
  onDone?: (playlist: { id: string; name: string }, count: number) => void;
}) {
  const [open, setOpen] = useState(false);
  const [lists, setLists] = useState<PlaylistSummary[] | null>(null);
  const [naming, setNaming] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState<{ tone: 'ok' | 'warn'; text: string } | null>(null);
  const box = useRef<HTMLSpanElement>(null);
  const ids = () => (typeof trackIds === 'function' ? trackIds() : trackIds);

  useEffect(() => {
    if (!open) return;
    const controller = new AbortController();
    setLists(null);
    setError(null);
    listPlaylists(controller.signal)
      .then((answer) => setLists(answer.playlists.filter((p) => p.editable && p.kind === 'static')))
      .catch((err) => {
        if (!controller.signal.aborted) setError(err);
      });
    return () => controller.abort();
  }, [open]);

  // A press outside the picker closes it, as a menu does.
  useEffect(() => {
    if (!open) return;
    const outside = (e: Event) => {
      if (box.current && !box.current.contains(e.target as Node)) {
        setOpen(false);
        setNaming(null);
      }
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, [open]);

  const close = () => {
    setOpen(false);
    setNaming(null);
  };
  const finish = (playlist: { id: string; name: string }, count: number) => {
    setNote({ tone: 'ok', text: addedText(count, playlist.name) });
    close();
    onDone?.(playlist, count);
  };
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const addTo = (p: PlaylistSummary) =>
    run(async () => {
      const tracks = ids();
      await addTracks(p.id, tracks);
      finish(p, tracks.length);
    });
  const createWith = () =>
    run(async () => {
      const checked = checkName(naming ?? '');
      if (!checked.ok) return setNote({ tone: 'warn', text: checked.message });
      const tracks = ids();
      const created = await createPlaylist(checked.name, tracks);
      finish(created, tracks.length);
    });

  return (
    <span
      class="add-to-playlist"
      ref={box}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && open) {
          e.stopPropagation();
          close();
          box.current?.querySelector<HTMLButtonElement>('.add-to-playlist-toggle')?.focus();
        }
      }}
    >
      <button
        type="button"
        class={compact ? 'icon-button add-to-playlist-toggle' : 'add-to-playlist-toggle'}
        aria-expanded={open}
        aria-haspopup="true"
        aria-label={label ?? (compact ? text : undefined)}
        title={compact ? text : undefined}
        disabled={disabled}
        onClick={() => {
          setNote(null);
          if (open) close();
          else setOpen(true);
        }}
      >
        {compact ? <Icon name="plus" size={18} /> : text}
      </button>
      {open && (
        <div class="playlist-picker" role="group" aria-label="Choose a playlist">
          {!lists && !error && <Loading label="Loading your playlists…" />}
          {lists && (
            <ul>
              {lists.map((p) => (
                <li key={p.id}>
                  <button type="button" class="picker-item" disabled={busy} onClick={() => void addTo(p)}>
                    {p.name}
                  </button>
                </li>
              ))}
              <li>
                {naming === null ? (
                  <button type="button" class="picker-item picker-new" disabled={busy} onClick={() => setNaming('')}>
                    New playlist…
                  </button>
                ) : (
                  <form
                    class="picker-new-form"
                    onSubmit={(e) => {
                      e.preventDefault();
                      void createWith();
                    }}
                  >
                    <input
                      type="text"
                      aria-label="Name of the new playlist"
                      placeholder="Name"
                      maxLength={200}
                      value={naming}
                      autoFocus
                      onInput={(e) => setNaming(e.currentTarget.value)}
                    />
                    <button type="submit" class="primary" disabled={busy}>
                      Create
                    </button>
                  </form>
                )}
              </li>
            </ul>
          )}
          <ErrorMessage error={error} />
        </div>
      )}
      {note && (
        <span class={`add-to-playlist-note ${note.tone}`} role="status">
          {note.text}
        </span>
      )}
    </span>
  );
}
