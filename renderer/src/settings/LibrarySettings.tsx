import { useState } from 'preact/hooks';
import { api } from '../api';
import { FolderBrowser } from '../components/FolderBrowser';
import { Card, ErrorMessage, Loading, Notice, useAction, useAsync, useReveal } from '../components/ui';
import { Link } from '../router';
import { FolderList } from '../screens/Onboarding';
import { useStore } from '../store';
import { IdentifyCard } from './IdentifyCard';
import { scan, startScan, type ScanState } from './scan';
import type { SettingsState } from './useSettings';
import { dateTime } from '../time';

export function LibrarySettings({ settings }: { settings: SettingsState }) {
  const saved = settings.data?.library.musicFolders ?? [];
  const fromEnvironment = settings.data?.library.environmentMusicFolders ?? [];
  const [draft, setDraft] = useState<string[] | null>(null);
  const folders = draft ?? saved;
  const [browsing, setBrowsing] = useState(false);
  const [savedNote, setSavedNote] = useState(false);
  const dirty = draft !== null && JSON.stringify(draft) !== JSON.stringify(saved);

  const save = useAction(async () => {
    await settings.save({ library: { musicFolders: folders } });
    setDraft(null);
    setSavedNote(true);
  });

  return (
    <>
      <Card title="Music folders" id="folders">
        <p class="muted">Tonearm reads these folders on the server and watches them for changes.</p>
        {settings.data ? <FolderList folders={folders} fromEnvironment={fromEnvironment} onRemove={(f) => setDraft(folders.filter((x) => x !== f))} /> : <Loading />}
        {browsing ? (
          <FolderBrowser
            idPrefix="settings-fs"
            onChoose={(p) => {
              if (!folders.includes(p) && !fromEnvironment.includes(p)) setDraft([...folders, p]);
              setSavedNote(false);
              setBrowsing(false);
            }}
          />
        ) : (
          <button type="button" onClick={() => setBrowsing(true)}>
            Add a folder…
          </button>
        )}
        <div class="form-actions">
          <button type="button" class="primary" disabled={!dirty || save.busy} onClick={() => void save.trigger()}>
            {save.busy ? 'Saving…' : 'Save folders'}
          </button>
          {dirty && (
            <button type="button" onClick={() => setDraft(null)}>
              Discard changes
            </button>
          )}
        </div>
        {savedNote && !dirty && <Notice tone="success">Folders saved. A scan of the new folders has been queued.</Notice>}
        <ErrorMessage error={save.error} />
      </Card>
      <ScanCard />
      <IdentifyCard settings={settings} />
      <ReplayGainCard settings={settings} />
    </>
  );
}

/** Issue 26 §3: where the measured ReplayGain values live (the database, or also the files' tags). */
function ReplayGainCard({ settings }: { settings: SettingsState }) {
  // The box shows the choice at once; the saved value takes over when the save ends (or fails).
  const [choosing, setChoosing] = useState<boolean | null>(null);
  const write = choosing ?? settings.data?.library.writeReplayGainTags === true;
  const toggle = useAction((on: boolean) => settings.save({ library: { writeReplayGainTags: on } }).finally(() => setChoosing(null)));
  return (
    <Card title="Volume levelling" id="replaygain">
      <p class="muted">
        Tonearm reads ReplayGain from your files’ tags and measures the files that have none in the background. Players (the web player,
        Subsonic apps) level the volume with these values.
      </p>
      <label class="check">
        <input type="checkbox" checked={write} disabled={!settings.data || toggle.busy} onChange={(e) => (setChoosing(e.currentTarget.checked), void toggle.trigger(e.currentTarget.checked))} />
        <span>Write ReplayGain tags into the music files (MP3, FLAC, Ogg, Opus)</span>
      </label>
      <p class="muted small">Off, your files are never changed: the measured values are kept in Tonearm’s database.</p>
      <ErrorMessage error={toggle.error} />
    </Card>
  );
}

function ScanCard() {
  const current = useStore(scan);
  const run = useAction((mode: 'quick' | 'full') => startScan(mode));
  const running = current?.status === 'running' || current?.status === 'queued';
  return (
    <Card title="Scan" id="scan">
      <p class="muted">A quick scan reads new and changed files; a full scan reads every file again.</p>
      <div class="form-actions">
        <button type="button" class="primary" disabled={running || run.busy} onClick={() => void run.trigger('quick')}>
          Rescan library
        </button>
        <button type="button" disabled={running || run.busy} onClick={() => void run.trigger('full')}>
          Full rescan
        </button>
      </div>
      <ErrorMessage error={run.error} />
      <ScanProgress state={current} />
    </Card>
  );
}

interface LibraryHealth {
  library?: { artistCount: number; lastScan: number | string | null };
}

/** Before any scan runs while the page is open: what the server knows about the last one. */
function LastScan() {
  const health = useAsync((signal) => api<LibraryHealth>('/api/health', { signal }), []);
  const library = health.data?.library;
  if (!library) return health.loading ? <Loading /> : null;
  if (library.lastScan === null) return <p class="muted">The library has not been scanned yet.</p>;
  const when = new Date(library.lastScan);
  return (
    <p class="muted" data-testid="last-scan">
      Last scan finished {dateTime(when)}; {library.artistCount} artist{library.artistCount === 1 ? '' : 's'} in the library.
    </p>
  );
}

function ScanProgress({ state }: { state: ScanState | null }) {
  // Brought into view when a scan starts or ends while the screen is open, also from under the player bar.
  const reveal = useReveal<HTMLDivElement>(state ? `${state.jobId}:${state.status}` : null, false);
  if (!state) return <LastScan />;
  const seen = state.filesSeen ?? 0;
  const done = (state.filesIndexed ?? 0) + (state.filesSkipped ?? 0) + (state.filesFailed ?? 0);
  const details = [
    `${state.filesIndexed ?? 0} indexed`,
    `${state.filesSkipped ?? 0} unchanged`,
    state.filesFailed ? `${state.filesFailed} failed` : null,
    state.filesMissing ? `${state.filesMissing} missing` : null,
  ]
    .filter(Boolean)
    .join(', ');
  return (
    <div class="scan-progress" data-testid="scan-status" aria-live="polite" ref={reveal}>
      {state.status === 'queued' && <Loading label="Scan queued…" />}
      {state.status === 'running' &&
        (state.phase === 'reading' ? (
          <>
            <Loading label={`Reading files… ${Math.min(done, seen)} of ${seen}`} />
            <progress max={Math.max(seen, 1)} value={Math.min(done, seen)} aria-label="Scan progress" data-phase="reading" />
            <p class="muted">{details}</p>
          </>
        ) : (
          <>
            {/* Until every folder is listed the total is unknown: an indeterminate bar, not one stuck near full. */}
            <Loading label={`Looking for music files… ${seen} found so far`} />
            <progress aria-label="Scan progress" data-phase="walking" />
            <p class="muted">{details}</p>
          </>
        ))}
      {state.status === 'completed' && (
        <Notice tone="success" reveal={false}>
          Scan completed: {seen} files, {details}. <Link href="/library/artists">Browse the library</Link>
        </Notice>
      )}
      {state.status === 'failed' && (
        <div class="error" role="alert">
          Scan failed{state.error ? `: ${state.error}` : ''}. {details}
        </div>
      )}
    </div>
  );
}
