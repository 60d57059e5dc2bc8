import { useEffect, useRef, useState } from 'preact/hooks';
import { isNotFound } from '../api';
import { Empty, ErrorMessage, Loading, Notice, formatDuration, useAction, useAsync } from '../components/ui';
import { Link, navigate } from '../router';
import { session } from '../session';
import { listen } from '../socket';
import { useStore } from '../store';
import { checkName, type PlaylistArtwork } from './logic';
import { type Note } from './PlaylistArt';
import { ConfirmDelete, PlaylistDetail } from './PlaylistDetail';
import {
  addSharedTrack,
  deleteShared,
  fetchExport,
  getShared,
  removeSharedTrack,
  researchMissing,
  researchTrack,
  saveFile,
  setRetryCycle,
  syncShared,
  updateShared,
} from './sharedApi';
import {
  canResearch,
  checkInterval,
  checkUrl,
  countsText,
  entryGroup,
  entryKey,
  exportFormats,
  ownerText,
  playableTracks,
  statusText,
  syncText,
  withoutTrack,
  type ExportFormat,
  type SharedDetail,
} from './sharedLogic';
import { SharedForm, SyncFields } from './SharedPlaylists';

/** Changes pushed on /ws are gathered for this long before the playlist is read again. */
const RELOAD_AFTER_MS = 400;

/** Reloads the playlist when one of its downloads moves or the status push says it changed. */
function useLiveReload(id: string, updatedAt: string | undefined, reload: () => void) {
  const seen = useRef(updatedAt);
  seen.current = updatedAt;
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const soon = () => {
      timer ??= setTimeout(() => {
        timer = null;
        reload();
      }, RELOAD_AFTER_MS);
    };
    const stop = listen(['playlists'], (msg) => {
      if (msg.type === 'job_updated') {
        const job = msg.job as { playlistType?: string; playlistId?: string } | undefined;
        if (job?.playlistType === 'shared' && job.playlistId === id) soon();
      } else if (msg.type === 'playlist_status') {
        const mine = (msg.sharedPlaylists as { id: string; updatedAt: string }[] | undefined)?.find((p) => p.id === id);
        if (mine && seen.current && mine.updatedAt !== seen.current) soon();
      }
    });
    return () => {
      stop();
      if (timer) clearTimeout(timer);
    };
  }, [id]);
}

/** One shared playlist: its tracks with their state, playing, and for its editors every change. */
export function SharedPlaylistScreen({ id }: { id: string }) {
  const loaded = useAsync((signal) => getShared(id, signal), [id]);
  const { user } = useStore(session);
  const [note, setNote] = useState<Note | null>(null);
  const [editing, setEditing] = useState(false);
  const [format, setFormat] = useState<ExportFormat>('tonearm');
  const detail = loaded.data;
  useLiveReload(id, detail?.updatedAt, loaded.reload);

  const replace = (d: SharedDetail) => loaded.setData({ ...d, artwork: d.artwork ?? detail?.artwork ?? null });
  const setArtwork = (artwork: PlaylistArtwork | null) => detail && loaded.setData({ ...detail, artwork });

  const remove = useAction(async () => {
    await deleteShared(id);
    navigate('/playlists');
  });
  const exportFile = useAction(async () => {
    const file = await fetchExport(id, format);
    saveFile(file.blob, file.fileName);
    setNote({ tone: 'success', text: `Exported as ${file.fileName}.` });
  });
  const sync = useAction(async () => {
    const r = await syncShared(id);
    setNote({ tone: 'success', text: `Synced: ${r.added} added, ${r.removed} removed${r.kept ? `, ${r.kept} kept` : ''}; ${r.total} tracks now.` });
    loaded.reload();
  });
  const researchAll = useAction(async () => {
    const r = await researchMissing(id);
    setNote({ tone: 'info', text: r.queued > 0 ? `Searching again for ${r.queued} missing track${r.queued === 1 ? '' : 's'}.` : 'Nothing to search again: every missing track is already waiting or downloading.' });
    loaded.reload();
  });
  const researchOne = useAction(async (key: string, title: string) => {
    await researchTrack(id, key);
    setNote({ tone: 'info', text: `Searching again for “${title}”.` });
    loaded.reload();
  });
  const retries = useAction(async (paused: boolean) => {
    await setRetryCycle(id, paused);
    if (detail) loaded.setData({ ...detail, retryCyclePaused: paused });
    setNote({ tone: 'info', text: paused ? 'Hourly retries of missing tracks are paused.' : 'Hourly retries of missing tracks are back on.' });
  });
  const dropTrack = useAction(async (key: string) => {
    if (!detail) return;
    loaded.setData(withoutTrack(detail, key));
    try {
      await removeSharedTrack(id, key);
    } finally {
      loaded.reload();
    }
  });

  if (loaded.loading && !detail) return <Loading label="Loading the playlist…" />;
  if (loaded.error && isNotFound(loaded.error))
    return (
      <Empty title="This shared playlist does not exist (any more).">
        <Link href="/playlists">Back to playlists</Link>
      </Empty>
    );
  if (loaded.error && !detail) return <ErrorMessage error={loaded.error} onRetry={loaded.reload} />;
  if (!detail) return null;
  const tracks = playableTracks(detail);
  const sync_ = syncText(detail);
  const missing = detail.tracks.filter((e) => canResearch(e)).length;

  return (
    <PlaylistDetail
      id={id}
      name={detail.name}
      eyebrow="Shared playlist"
      class="shared-detail"
      artwork={detail.artwork ?? null}
      editable={detail.canEdit}
      onArtwork={setArtwork}
      note={note}
      onNote={setNote}
      about={
        <>
          {detail.description && <p>{detail.description}</p>}
          <p class="muted" data-testid="shared-counts">
            {countsText(detail)} · {ownerText(detail, user?.id ?? null)}
          </p>
          {sync_ && (
            <p class={detail.lastSyncError ? 'sync-failed' : 'muted'} data-testid="shared-sync">
              {sync_}
              {detail.sourceUrl && (
                <>
                  {' '}
                  · <span class="source-url">{detail.sourceUrl}</span>
                </>
              )}
            </p>
          )}
          {detail.canEdit && detail.retryCyclePaused && <p class="muted">Hourly retries of missing tracks are paused.</p>}
        </>
      }
      tracks={tracks}
      actions={
        <span class="export-choice" role="group" aria-label="Export">
          <label for="export-format" class="visually-hidden">
            Export format
          </label>
          <select id="export-format" value={format} onChange={(e) => setFormat(e.currentTarget.value as ExportFormat)}>
            {exportFormats.map((f) => (
              <option key={f.id} value={f.id}>
                {f.label}
              </option>
            ))}
          </select>
          <button type="button" disabled={exportFile.busy} onClick={() => void exportFile.trigger()}>
            Export
          </button>
        </span>
      }
      moreActions={
        detail.canEdit ? (
          <div class="detail-actions" role="group" aria-label="Change the playlist">
            {!editing && (
              <button type="button" onClick={() => setEditing(true)}>
                Edit…
              </button>
            )}
            {detail.sourceUrl && (
              <button type="button" disabled={sync.busy} onClick={() => void sync.trigger()}>
                {sync.busy ? 'Syncing…' : 'Sync now'}
              </button>
            )}
            <button type="button" disabled={researchAll.busy || missing === 0} onClick={() => void researchAll.trigger()}>
              Search again for missing
            </button>
            <button type="button" disabled={retries.busy} onClick={() => void retries.trigger(!detail.retryCyclePaused)}>
              {detail.retryCyclePaused ? 'Resume retries' : 'Pause retries'}
            </button>
            <ConfirmDelete name={detail.name} busy={remove.busy} onDelete={() => void remove.trigger()} />
          </div>
        ) : (
          <p class="muted">Read-only: only its owner or an administrator can change this playlist.</p>
        )
      }
      afterHeader={
        editing && (
          <EditShared
            detail={detail}
            onSaved={(d) => {
              replace(d);
              setEditing(false);
              setNote({ tone: 'success', text: 'Saved.' });
            }}
            onCancel={() => setEditing(false)}
          />
        )
      }
      errors={[remove, exportFile, sync, researchAll, researchOne, retries, dropTrack].map((a) => a.error)}
      beforeTable={
        <>
          {loaded.error && <ErrorMessage error={loaded.error} onRetry={loaded.reload} />}
          {detail.canEdit && (
            <AddTrack
              id={id}
              onAdded={(text) => {
                setNote({ tone: 'success', text });
                loaded.reload();
              }}
            />
          )}
        </>
      }
      empty={{ title: 'No tracks in this playlist.', text: detail.canEdit ? 'Add one by artist and title above.' : '' }}
      columns={[
        { className: 'col-album', label: 'Album' },
        { className: 'col-time', label: 'Time' },
        { className: 'col-state', label: 'State' },
      ]}
      action={detail.canEdit ? 'Actions' : undefined}
      rows={detail.tracks.map((e) => {
        const key = entryKey(e);
        const group = entryGroup(e.status);
        const trackId = e.trackId !== null ? Number(e.trackId) : null;
        return {
          key: e.entryId,
          title: e.trackName,
          artistName: e.artistName,
          trackId,
          playAt: trackId !== null ? tracks.findIndex((t) => t.id === trackId) : -1,
          rowProps: { class: `entry-${group}`, 'data-state': group },
          cells: (
            <>
              <td class="col-album">{e.albumName}</td>
              <td class="col-time muted">{e.durationMs ? formatDuration(e.durationMs / 1000) : ''}</td>
              <td class="col-state">
                <span class={`entry-state state-${group}`}>{statusText(e)}</span>
                {e.removedFromSource && <span class="muted small"> · gone from the source</span>}
              </td>
              {detail.canEdit && (
                <td class="col-remove">
                  {canResearch(e) && (
                    <button type="button" class="link-button" disabled={researchOne.busy} aria-label={`Search again for ${e.trackName}`} onClick={() => void researchOne.trigger(key, e.trackName)}>
                      Search again
                    </button>
                  )}{' '}
                  <button type="button" class="link-button" disabled={dropTrack.busy} aria-label={`Remove ${e.trackName} from the playlist`} onClick={() => void dropTrack.trigger(key)}>
                    Remove
                  </button>
                </td>
              )}
            </>
          ),
        };
      })}
    />
  );
}

function EditShared({ detail, onSaved, onCancel }: { detail: SharedDetail; onSaved: (d: SharedDetail) => void; onCancel: () => void }) {
  const [name, setName] = useState(detail.name);
  const [description, setDescription] = useState(detail.description);
  const [sourceUrl, setSourceUrl] = useState(detail.sourceUrl ?? '');
  const [enabled, setEnabled] = useState(detail.syncEnabled);
  const [hours, setHours] = useState(String(detail.syncIntervalHours));
  const [keep, setKeep] = useState(detail.keepRemovedTracks);
  const [problem, setProblem] = useState<string | null>(null);
  const save = useAction(async () => {
    const n = checkName(name);
    if (!n.ok) return setProblem(n.message);
    const url = sourceUrl.trim() ? checkUrl(sourceUrl) : null;
    if (url && !url.ok) return setProblem(url.message);
    if (enabled && !url) return setProblem('Sync needs the address of the source.');
    const interval = checkInterval(hours);
    if (!interval.ok) return setProblem(interval.message);
    setProblem(null);
    onSaved(
      await updateShared(detail.id, {
        name: n.name,
        description: description.trim(),
        sourceUrl: url ? url.url : null,
        syncEnabled: enabled,
        syncIntervalHours: interval.hours,
        keepRemovedTracks: keep,
      }),
    );
  });
  return (
    <SharedForm label="Edit the shared playlist" submitLabel="Save" busy={save.busy} error={save.error} problem={problem} onSubmit={() => void save.trigger()} onClose={onCancel}>
      <div class="field">
        <label for="edit-name">Name</label>
        <input id="edit-name" type="text" value={name} maxLength={200} autoFocus onInput={(e) => setName(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="edit-description">Description</label>
        <input id="edit-description" type="text" value={description} maxLength={2000} onInput={(e) => setDescription(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="edit-source">Source address (optional)</label>
        <input id="edit-source" type="url" value={sourceUrl} maxLength={2000} placeholder="https://…/playlist.jspf" onInput={(e) => setSourceUrl(e.currentTarget.value)} />
      </div>
      <SyncFields idPrefix="edit" enabled={enabled} hours={hours} keep={keep} onEnabled={setEnabled} onHours={setHours} onKeep={setKeep} />
    </SharedForm>
  );
}

function AddTrack({ id, onAdded }: { id: string; onAdded: (text: string) => void }) {
  const [artist, setArtist] = useState('');
  const [title, setTitle] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const add = useAction(async () => {
    if (!artist.trim() || !title.trim()) return setProblem('Enter both the artist and the title.');
    setProblem(null);
    const r = await addSharedTrack(id, artist.trim(), title.trim());
    setArtist('');
    setTitle('');
    onAdded(r.queued ? `“${title.trim()}” was added; it will be downloaded.` : `“${title.trim()}” was added from your library.`);
  });
  return (
    <form
      class="add-track"
      aria-label="Add a track"
      onSubmit={(e) => {
        e.preventDefault();
        void add.trigger();
      }}
    >
      <label for="add-artist">Artist</label>
      <input id="add-artist" type="text" value={artist} maxLength={500} onInput={(e) => setArtist(e.currentTarget.value)} />
      <label for="add-title">Title</label>
      <input id="add-title" type="text" value={title} maxLength={500} onInput={(e) => setTitle(e.currentTarget.value)} />
      <button type="submit" disabled={add.busy}>
        Add track
      </button>
      {problem && <Notice tone="warn">{problem}</Notice>}
      <ErrorMessage error={add.error} />
    </form>
  );
}
