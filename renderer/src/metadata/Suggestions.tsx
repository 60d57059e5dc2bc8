import type { TargetedClipboardEvent } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api } from '../api';
import { Artwork } from '../library/Artwork';
import { canonicalPage } from '../library/model';
import { playTracks } from '../player/player';
import { listPlaylists } from '../playlists/api';
import type { PlaylistSummary } from '../playlists/logic';
import { navigate } from '../router';
import { isHttpLink } from './logic';
import { groupsOf, matchingPlaylists, moveActive, type LibraryTrackHit, type SearchGroup, type SearchOption, type Unified } from './oneSearch';

/** Whether this server answers /api/search/unified; learned once per page load. */
let unifiedMissing = false;

/** The wait after a keystroke before asking, and before asking again while MusicBrainz is still working. */
const DEBOUNCE_MS = 250;
const PENDING_RETRY_MS = 1500;

export interface Suggestions {
  /** False when the server has no unified search (the screen then searches as you type instead). */
  available: boolean;
  /** The groups for the words typed, or null while none were asked for (yet). */
  groups: SearchGroup[] | null;
  /** What MusicBrainz did with the words (its part of the answer). */
  remote: Unified['remote']['status'] | null;
  /** The words the groups answer (the previous ones while the latest are asked for). */
  words: string | null;
}

/**
 * One search as you type: GET /api/search/unified (the library's artists, albums and tracks at once,
 * MusicBrainz's artists and albums when they answer in time) and the user's playlists by name.
 * Asks only while `wanted` (the list is open).
 */
export function useSuggestions(typed: string, wanted: boolean): Suggestions {
  const [answer, setAnswer] = useState<{ words: string; groups: SearchGroup[]; remote: Unified['remote']['status'] } | null>(null);
  const [available, setAvailable] = useState(!unifiedMissing);
  // The playlists the user can open, read once when the first words are asked for.
  const playlists = useRef<Promise<PlaylistSummary[]> | null>(null);
  const words = typed.trim();
  useEffect(() => {
    if (!available || !wanted || words.length < 2 || isHttpLink(words)) return;
    const ctl = new AbortController();
    let retry: ReturnType<typeof setTimeout> | undefined;
    playlists.current ??= listPlaylists().then(
      (r) => r.playlists,
      () => [],
    );
    const ask = () =>
      Promise.all([api<Unified>('/api/search/unified', { query: { q: words, limit: 5 }, signal: ctl.signal }), playlists.current!]).then(
        ([u, lists]) => {
          if (ctl.signal.aborted) return;
          setAnswer({ words, groups: groupsOf(u, matchingPlaylists(lists, words)), remote: u.remote.status });
          // MusicBrainz is still working on these words: ask again for its part.
          if (u.remote.status === 'pending') retry = setTimeout(() => void ask(), PENDING_RETRY_MS);
        },
        (err: unknown) => {
          if (ctl.signal.aborted) return;
          if (err instanceof ApiError && err.status === 404) {
            unifiedMissing = true;
            setAvailable(false);
          }
        },
      );
    const t = setTimeout(() => void ask(), DEBOUNCE_MS);
    return () => {
      ctl.abort();
      clearTimeout(t);
      clearTimeout(retry);
    };
  }, [words, wanted, available]);
  // The last answer stays while the next words are asked for, so the list does not blink at every keystroke.
  const current = answer && words.length >= 2 && !isHttpLink(words) ? answer : null;
  return { available, groups: current?.groups ?? null, remote: current?.remote ?? null, words: current?.words ?? null };
}

/**
 * Plays a library track found by search, with the rest of its album queued after it (as the album
 * page plays it); alone when its album cannot be read. A track the library has no playable file for
 * opens its album page instead, which says so.
 */
export async function playFound(hit: LibraryTrackHit): Promise<void> {
  if (hit.albumId !== null) {
    try {
      const album = await canonicalPage('tracks', 1, { albumId: Number(hit.albumId) }, undefined, 100);
      const at = album.items.findIndex((t) => String(t.id) === hit.id);
      if (at >= 0 && album.items[at]!.available === false) return navigate(`/library/albums/${hit.albumId}`);
      if (at >= 0) return playTracks(album.items, at);
    } catch {
      // played alone below
    }
  }
  playTracks([{ id: Number(hit.id), title: hit.title, artistName: hit.artistName, albumId: hit.albumId === null ? null : Number(hit.albumId), albumTitle: hit.albumTitle }]);
}

/** Opens an option: its page, or for a track, playing it. */
export function openOption(o: SearchOption): void {
  if (o.track) void playFound(o.track);
  else if (o.href) navigate(o.href);
}

const remoteNote: Partial<Record<NonNullable<Suggestions['remote']>, string>> = {
  pending: 'Still asking MusicBrainz…',
  unavailable: 'MusicBrainz is not answering; these are from your library only.',
};

function nothingText(words: string, remote: Suggestions['remote']): string {
  if (remote === 'disabled') return `Nothing in your library matches “${words}”.`;
  return `Nothing in your library matches “${words}”${remote === 'complete' ? ' and MusicBrainz suggests nothing new' : ''}. Press Enter to search MusicBrainz.`;
}

/**
 * The search box as a combobox (ARIA combobox with a listbox popup): as you type it lists the
 * library's artists, albums, tracks and playlists, then what can be requested from MusicBrainz.
 * ArrowDown/ArrowUp move the active option (aria-activedescendant; the focus stays in the box),
 * Enter opens it (a track plays), Escape closes the list; Enter with no active option is left to
 * the form (the full results).
 */
export function SearchCombobox({
  id,
  value,
  onValue,
  placeholder,
  autoFocus,
  onPaste,
  describedBy,
  onAvailable,
}: {
  id: string;
  value: string;
  onValue: (v: string) => void;
  placeholder: string;
  autoFocus?: boolean;
  onPaste?: (e: TargetedClipboardEvent<HTMLInputElement>) => void;
  /** More description of the box (the page's own hint). */
  describedBy?: string;
  /** Told whether the server answers suggestions at all. */
  onAvailable?: (available: boolean) => void;
}) {
  const [open, setOpen] = useState(false);
  const [activeKey, setActiveKey] = useState<string | null>(null);
  const s = useSuggestions(value, open);
  useEffect(() => onAvailable?.(s.available), [s.available]);
  const listId = `${id}-list`;
  const groups = s.groups ?? [];
  const options = groups.flatMap((g) => g.options);
  const shown = open && options.length > 0;
  const active = shown ? options.findIndex((o) => o.key === activeKey) : -1;
  const optionId = (o: SearchOption) => `${id}-opt-${o.key}`;
  const listRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (active < 0) return;
    const el = listRef.current?.querySelector<HTMLElement>(`[id="${optionId(options[active]!)}"]`);
    el?.scrollIntoView?.({ block: 'nearest' });
  }, [active, activeKey]);
  const close = () => {
    setOpen(false);
    setActiveKey(null);
  };
  const choose = (o: SearchOption) => {
    close();
    openOption(o);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (!open) setOpen(true);
      if (options.length === 0) return;
      e.preventDefault();
      const base = open ? active : -1;
      setActiveKey(options[moveActive(base, options.length, e.key)]!.key);
    } else if (e.key === 'Enter') {
      if (active >= 0) {
        e.preventDefault();
        choose(options[active]!);
      } else close(); // the form searches
    } else if (e.key === 'Escape') {
      if (shown) {
        // Closes the list; the box keeps its words (and the focus).
        e.preventDefault();
        close();
      }
    }
  };
  const note = open && s.groups && s.remote ? remoteNote[s.remote] : undefined;
  const nothing = open && s.groups !== null && options.length === 0 && s.remote !== 'pending';
  const status = nothing ? nothingText(s.words ?? value.trim(), s.remote) : (note ?? '');
  const hintId = `${id}-hint`;
  return (
    <div class="combo">
      <input
        id={id}
        type="search"
        role="combobox"
        list={undefined}
        autoComplete="off"
        aria-autocomplete="list"
        aria-expanded={shown ? 'true' : 'false'}
        aria-controls={listId}
        aria-activedescendant={active >= 0 ? optionId(options[active]!) : undefined}
        aria-describedby={[hintId, describedBy].filter(Boolean).join(' ')}
        placeholder={placeholder}
        value={value}
        autoFocus={autoFocus}
        onInput={(e) => {
          onValue(e.currentTarget.value);
          setOpen(true);
          setActiveKey(null);
        }}
        onKeyDown={onKeyDown}
        onBlur={close}
        onPaste={onPaste}
      />
      <p id={hintId} class="visually-hidden">
        Suggestions appear as you type: the down and up arrows pick one, Enter opens it or, with none picked, shows all results, Escape closes the list.
      </p>
      <div class="combo-popup" hidden={!shown && !status}>
        <div id={listId} role="listbox" aria-label="Suggestions" class="suggestions" hidden={!shown} ref={listRef}>
          {shown &&
            groups.map((g) => (
              <div key={g.id} role="group" aria-labelledby={`${listId}-${g.id}`} class="suggestion-group" data-group={g.id}>
                <div id={`${listId}-${g.id}`} role="presentation" class="suggestion-group-label">
                  {g.label}
                </div>
                {g.options.map((o) => (
                  <div
                    key={o.key}
                    id={optionId(o)}
                    role="option"
                    aria-selected={o.key === activeKey ? 'true' : 'false'}
                    class={`suggestion${o.key === activeKey ? ' active' : ''}`}
                    // The box keeps the focus (and the list stays) while the pointer presses.
                    onMouseDown={(e) => e.preventDefault()}
                    onMouseMove={() => o.key !== activeKey && setActiveKey(o.key)}
                    onClick={() => choose(o)}
                  >
                    <Artwork url={o.image} size={64} label={o.title} class={`suggestion-art ${o.round ? 'round' : ''}`} />
                    <span class="suggestion-text">
                      <span class="suggestion-title">{o.title}</span>
                      <span class="muted small">{o.sub}</span>
                    </span>
                  </div>
                ))}
              </div>
            ))}
        </div>
        <p class="muted small suggestion-note" role="status">
          {status}
        </p>
      </div>
    </div>
  );
}
