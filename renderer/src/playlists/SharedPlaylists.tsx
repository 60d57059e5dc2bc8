import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Empty, ErrorMessage, Loading, Notice, useAction, useAsync } from '../components/ui';
import { Link, navigate } from '../router';
import { isAdmin, session } from '../session';
import { useStore } from '../store';
import { checkName } from './logic';
import { PlaylistArt } from './PlaylistArt';
import { createShared, importShared, listShared } from './sharedApi';
import { checkInterval, checkUrl, countsText, fileImportBody, ownerText, syncText, type ImportBody } from './sharedLogic';

/** Creating and importing make download jobs: the accessFlow permission (administrators have it). */
export function useCanManageShared(): boolean {
  const { user } = useStore(session);
  return !!user && (isAdmin(user) || user.permissions?.accessFlow === true);
}

/** The Playlists screen's second half: every shared playlist, with forms to start or import one. */
export function SharedPlaylistsSection() {
  const lists = useAsync((signal) => listShared(signal), []);
  const { user } = useStore(session);
  const canManage = useCanManageShared();
  const [open, setOpen] = useState<'create' | 'import' | null>(null);
  const playlists = lists.data ?? [];
  return (
    <section class="shared-playlists" aria-labelledby="shared-title">
      <div class="list-actions">
        <h2 id="shared-title">Shared playlists</h2>
        {canManage && (
          <span class="shared-actions">
            <button type="button" aria-expanded={open === 'create'} onClick={() => setOpen(open === 'create' ? null : 'create')}>
              New shared playlist
            </button>
            <button type="button" aria-expanded={open === 'import'} onClick={() => setOpen(open === 'import' ? null : 'import')}>
              Import a playlist…
            </button>
          </span>
        )}
      </div>
      <p class="muted">Every user can read and play a shared playlist; its owner and administrators change it. Missing tracks are downloaded.</p>
      {open === 'create' && <CreateShared onClose={() => setOpen(null)} />}
      {open === 'import' && <ImportShared onClose={() => setOpen(null)} />}
      {lists.loading && !lists.data && <Loading label="Loading shared playlists…" />}
      <ErrorMessage error={lists.error} onRetry={lists.reload} />
      {lists.data && playlists.length === 0 && (
        <Empty title="No shared playlists yet.">{canManage ? 'Start one, or import a JSPF or M3U file or a playlist on the web.' : 'None has been shared yet.'}</Empty>
      )}
      {playlists.length > 0 && (
        <ul class="grid" aria-label="Shared playlists">
          {playlists.map((p) => {
            const sync = syncText(p);
            return (
              <li key={p.id} class="tile" data-playlist={p.name}>
                <Link href={`/playlists/shared/${p.id}`} class="tile-link">
                  <PlaylistArt artwork={p.artwork ?? null} name={p.name} size={300} class="tile-art" />
                  <span class="tile-title">{p.name}</span>
                  <span class="tile-sub muted" data-testid="shared-counts">
                    {countsText(p)} · {ownerText(p, user?.id ?? null)}
                  </span>
                  {sync && (
                    <span class={`tile-sub small ${p.lastSyncError ? 'sync-failed' : 'muted'}`} data-testid="shared-sync">
                      {sync}
                    </span>
                  )}
                </Link>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

function CreateShared({ onClose }: { onClose: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const create = useAction(async () => {
    const checked = checkName(name);
    if (!checked.ok) return setProblem(checked.message);
    setProblem(null);
    const created = await createShared({ name: checked.name, ...(description.trim() && { description: description.trim() }) });
    navigate(`/playlists/shared/${created.id}`);
  });
  return (
    <SharedForm label="New shared playlist" submitLabel="Create shared playlist" busy={create.busy} error={create.error} problem={problem} onSubmit={() => void create.trigger()} onClose={onClose}>
      <div class="field">
        <label for="shared-name">Name</label>
        <input id="shared-name" type="text" value={name} maxLength={200} autoFocus onInput={(e) => setName(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="shared-description">Description (optional)</label>
        <input id="shared-description" type="text" value={description} maxLength={2000} onInput={(e) => setDescription(e.currentTarget.value)} />
      </div>
    </SharedForm>
  );
}

interface SharedFormProps {
  label: string;
  submitLabel: string;
  busy: boolean;
  error: unknown;
  /** What the form found wrong before sending. */
  problem: string | null;
  onSubmit: () => void;
  onClose: () => void;
  children: ComponentChildren;
}

/** The frame of the shared-playlist forms (create, import, edit): the fields, then the problem, the server's error, submit and Cancel. */
export function SharedForm({ label, submitLabel, busy, error, problem, onSubmit, onClose, children }: SharedFormProps) {
  return (
    <form
      class="card shared-form"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
      {problem && <Notice tone="warn">{problem}</Notice>}
      <ErrorMessage error={error} />
      <div class="form-actions">
        <button type="submit" class="primary" disabled={busy}>
          {submitLabel}
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Sync options of a playlist read from the web: the same fields on import and when editing. */
export function SyncFields({
  idPrefix,
  enabled,
  hours,
  keep,
  onEnabled,
  onHours,
  onKeep,
}: {
  idPrefix: string;
  enabled: boolean;
  hours: string;
  keep: boolean;
  onEnabled: (v: boolean) => void;
  onHours: (v: string) => void;
  onKeep: (v: boolean) => void;
}) {
  return (
    <fieldset class="sync-fields">
      <legend>Sync</legend>
      <label class="check">
        <input type="checkbox" checked={enabled} onChange={(e) => onEnabled(e.currentTarget.checked)} /> Keep in sync with the source
      </label>
      <div class="field inline-field">
        <label for={`${idPrefix}-hours`}>Check every (hours)</label>
        <input id={`${idPrefix}-hours`} type="number" min={1} max={720} step={1} value={hours} disabled={!enabled} onInput={(e) => onHours(e.currentTarget.value)} />
      </div>
      <label class="check">
        <input type="checkbox" checked={keep} onChange={(e) => onKeep(e.currentTarget.checked)} /> Keep tracks the source removed
      </label>
    </fieldset>
  );
}

function ImportShared({ onClose }: { onClose: () => void }) {
  const [mode, setMode] = useState<'file' | 'url'>('file');
  const [file, setFile] = useState<File | null>(null);
  const [url, setUrl] = useState('');
  const [name, setName] = useState('');
  const [syncEnabled, setSyncEnabled] = useState(true);
  const [hours, setHours] = useState('24');
  const [keep, setKeep] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const run = useAction(async () => {
    let body: ImportBody;
    if (mode === 'file') {
      if (!file) return setProblem('Choose a playlist file (JSPF, M3U/M3U8 or a Tonearm export).');
      body = fileImportBody(file.name, await file.text(), name);
    } else {
      const u = checkUrl(url);
      if (!u.ok) return setProblem(u.message);
      const interval = checkInterval(hours);
      if (syncEnabled && !interval.ok) return setProblem(interval.message);
      body = { url: u.url, syncEnabled, keepRemovedTracks: keep, ...(interval.ok && { syncIntervalHours: interval.hours }), ...(name.trim() && { name: name.trim() }) };
    }
    setProblem(null);
    const created = await importShared(body);
    navigate(`/playlists/shared/${created.id}`);
  });
  return (
    <SharedForm
      label="Import a shared playlist"
      submitLabel={run.busy ? 'Importing…' : 'Import'}
      busy={run.busy}
      error={run.error}
      problem={problem}
      onSubmit={() => void run.trigger()}
      onClose={onClose}
    >
      <fieldset class="import-mode">
        <legend>Import from</legend>
        <label class="check">
          <input type="radio" name="import-mode" checked={mode === 'file'} onChange={() => setMode('file')} /> A file
        </label>
        <label class="check">
          <input type="radio" name="import-mode" checked={mode === 'url'} onChange={() => setMode('url')} /> A web address
        </label>
      </fieldset>
      {mode === 'file' ? (
        <div class="field">
          <label for="import-file">Playlist file</label>
          <input
            id="import-file"
            type="file"
            accept=".jspf,.json,.m3u,.m3u8,.txt,application/json,audio/x-mpegurl,audio/mpegurl"
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
            aria-describedby="import-file-hint"
          />
          <small id="import-file-hint" class="hint">
            JSPF (ListenBrainz), M3U/M3U8 with artist and title, or a playlist exported from Tonearm.
          </small>
        </div>
      ) : (
        <>
          <div class="field">
            <label for="import-url">Address of the playlist</label>
            <input id="import-url" type="url" value={url} maxLength={2000} placeholder="https://…/playlist.jspf" onInput={(e) => setUrl(e.currentTarget.value)} />
          </div>
          <SyncFields idPrefix="import" enabled={syncEnabled} hours={hours} keep={keep} onEnabled={setSyncEnabled} onHours={setHours} onKeep={setKeep} />
        </>
      )}
      <div class="field">
        <label for="import-name">Name (optional)</label>
        <input id="import-name" type="text" value={name} maxLength={200} placeholder="The playlist’s own name" onInput={(e) => setName(e.currentTarget.value)} />
      </div>
    </SharedForm>
  );
}
