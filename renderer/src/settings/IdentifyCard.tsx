import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { Card, ErrorMessage, Loading, Notice, useAction, useAsync } from '../components/ui';
import { inWords } from '../messages';
import { Link } from '../router';
import type { SettingsState } from './useSettings';
import { dateTime } from '../time';
import type { Answer } from '../wire';

/**
 * Administrators: "Identify files without MusicBrainz ids" (issue 26 §2). Starts a run on the server
 * (`POST /api/library/identify`), follows its progress (the run is read again every 2 s while it
 * runs), and lists the proposals per album with Accept and Reject. Nothing is written to a file
 * until its album is accepted.
 */

type IdentifyState = Answer<'/api/library/identify'>;
export type IdentifyRun = NonNullable<IdentifyState['run']>;
export type IdentifyAlbum = IdentifyState['albums'][number];
export type IdentifyProposal = IdentifyAlbum['proposals'][number];
type Decided = Answer<'/api/library/identify/albums/{albumId}/accept', 'post'>;

export const POLL_MS = 2000;
const ACOUSTID_CARD = '/settings/integrations#integration-acoustid';

/** `none` names the files of no album on the wire. */
const albumKey = (a: IdentifyAlbum) => (a.albumId === null ? 'none' : String(a.albumId));
const albumName = (a: IdentifyAlbum) => a.albumTitle ?? 'Files without an album';
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const fileName = (p: string) => p.split(/[\\/]/).pop() ?? p;

/** Whether the saved settings let a run start: a key is saved (masked) and the switch is on. */
function acoustIdReady(settings: SettingsState): boolean {
  const a = ((settings.data?.integrations ?? {}) as { acoustid?: { apiKey?: string; enabled?: boolean } }).acoustid;
  return !!a && String(a.apiKey ?? '').trim() !== '' && a.enabled !== false;
}

function NotSetUp() {
  return (
    <p class="setup-state" data-setup="missing">
      <strong>AcoustID is not set up.</strong> Add an AcoustID key in <Link href={ACOUSTID_CARD}>Settings → Integrations</Link> (and switch it on) to identify files.
    </p>
  );
}

export function IdentifyCard({ settings }: { settings: SettingsState }) {
  const state = useAsync((signal) => api<IdentifyState>('/api/library/identify', { signal }), []);
  const [notes, setNotes] = useState<Record<string, { tone: 'success' | 'warn'; text: string }>>({});
  const [startNote, setStartNote] = useState<string | null>(null);
  const run = state.data?.run ?? null;
  const running = run?.status === 'running';

  // While a run is running: read it again every 2 s.
  useEffect(() => {
    if (!running) return;
    const timer = setTimeout(state.reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [running, state.data, state.error]);

  const start = useAction(async () => {
    setStartNote(null);
    setNotes({});
    const answer = await api<Answer<'/api/library/identify', 'post'>>('/api/library/identify', { method: 'POST' });
    if (!answer.started) setStartNote('A run is already under way; its progress is shown below.');
    state.setData({ run: answer.run, albums: state.data?.albums ?? [] });
  });
  const decide = useAction(async (album: IdentifyAlbum, decision: 'accept' | 'reject') => {
    const key = albumKey(album);
    const answer = await api<Decided>(`/api/library/identify/albums/${key}/${decision}`, { method: 'POST', body: {} });
    const name = albumName(album);
    const text =
      decision === 'reject'
        ? `${name}: ${plural(answer.decided, 'proposal')} rejected; those files are not proposed again.`
        : answer.failed.length === 0
          ? `${name}: ${plural(answer.decided, 'file')} written; the library reads them again.`
          : `${name}: ${plural(answer.decided, 'file')} written, ${answer.failed.length} failed: ${answer.failed.map((f) => `${fileName(f.path)} (${f.error})`).join('; ')}`;
    setNotes((n) => ({ ...n, [key]: { tone: answer.failed.length ? 'warn' : 'success', text } }));
    state.reload();
  });

  const ready = acoustIdReady(settings);
  const startError = start.error instanceof ApiError && start.error.code === 'ACOUSTID_NOT_CONFIGURED' ? null : start.error;
  const albums = state.data?.albums ?? [];
  const decidedNotes = Object.entries(notes).filter(([key]) => !albums.some((a) => albumKey(a) === key));

  return (
    <Card title="Identify files without MusicBrainz ids" id="identify">
      <p class="muted">
        Fingerprints every library file whose track has no MusicBrainz id and looks its sound up on AcoustID. The matches are proposed per album; nothing is
        written into a file until you accept its album.
      </p>
      {(!ready || (start.error instanceof ApiError && start.error.code === 'ACOUSTID_NOT_CONFIGURED')) && <NotSetUp />}
      <div class="form-actions">
        <button type="button" class="primary" disabled={!ready || running || start.busy || !state.data} onClick={() => void start.trigger()}>
          {running ? 'Identifying…' : start.busy ? 'Starting…' : 'Start identifying'}
        </button>
      </div>
      {startNote && <Notice tone="info">{startNote}</Notice>}
      <ErrorMessage error={startError} />
      {state.loading && !state.data && <Loading label="Loading the identify run…" />}
      <ErrorMessage error={state.error} onRetry={state.reload} />
      {run && <RunStatus run={run} />}
      {decidedNotes.map(([key, n]) => (
        <Notice key={key} tone={n.tone}>
          {n.text}
        </Notice>
      ))}
      {state.data && albums.length === 0 && run && !running && run.status !== 'failed' && (
        <p class="muted" data-testid="identify-empty">
          {run.total === 0 ? 'Nothing to identify: every library file has MusicBrainz ids or had its proposal rejected.' : 'No proposals are waiting.'}
        </p>
      )}
      {albums.length > 0 && (
        <div class="identify-albums">
          <h3>Proposals</h3>
          {albums.map((a) => (
            <AlbumProposals key={albumKey(a)} album={a} busy={decide.busy} note={notes[albumKey(a)] ?? null} onDecide={(d) => void decide.trigger(a, d)} />
          ))}
        </div>
      )}
      <ErrorMessage error={decide.error} />
    </Card>
  );
}

function RunStatus({ run }: { run: IdentifyRun }) {
  if (run.status === 'running')
    return (
      <div class="scan-progress" data-testid="identify-status" aria-live="polite">
        <Loading label={`Identifying files… ${run.processed} of ${run.total}, ${plural(run.proposed, 'match', 'matches')} so far`} />
        <progress max={Math.max(run.total, 1)} value={Math.min(run.processed, run.total)} aria-label="Identify progress" />
      </div>
    );
  if (run.status === 'failed')
    return (
      <div class="error" role="alert" data-testid="identify-status">
        The last run stopped after {run.processed} of {plural(run.total, 'file')}
        {run.note ? `: ${inWords(run.note)}` : '.'}
      </div>
    );
  return (
    <p class="muted" data-testid="identify-status">
      Last run finished{run.finishedAt ? ` ${dateTime(run.finishedAt)}` : ''}: {plural(run.total, 'file')} checked, {plural(run.proposed, 'match', 'matches')} proposed.
    </p>
  );
}

function AlbumProposals({
  album,
  busy,
  note,
  onDecide,
}: {
  album: IdentifyAlbum;
  busy: boolean;
  note: { tone: 'success' | 'warn'; text: string } | null;
  onDecide: (decision: 'accept' | 'reject') => void;
}) {
  const name = albumName(album);
  return (
    <section class="identify-album" data-album={albumKey(album)} aria-label={name}>
      <h4>{name}</h4>
      <table class="identify-proposals">
        <thead>
          <tr>
            <th scope="col">File</th>
            <th scope="col">Now</th>
            <th scope="col">Proposed</th>
            <th scope="col">MusicBrainz ids</th>
            <th scope="col">Score</th>
          </tr>
        </thead>
        <tbody>
          {album.proposals.map((p) => (
            <tr key={p.id} data-proposal={p.id}>
              <td title={p.path}>{fileName(p.path)}</td>
              <td>
                {p.current.title} — {p.current.artistName}
              </td>
              <td>
                {p.proposed.title}
                {p.proposed.artistName && ` — ${p.proposed.artistName}`}
              </td>
              <td class="small">
                <span>Recording {p.proposed.recordingMbid}</span>
                {p.proposed.artistMbid && (
                  <>
                    <br />
                    <span>Artist {p.proposed.artistMbid}</span>
                  </>
                )}
              </td>
              <td>{Math.round(p.score * 100)}%</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="form-actions">
        <button type="button" class="primary" disabled={busy} aria-label={`Accept ${name}`} onClick={() => onDecide('accept')}>
          Accept
        </button>
        <button type="button" disabled={busy} aria-label={`Reject ${name}`} onClick={() => onDecide('reject')}>
          Reject
        </button>
      </div>
      {note && <Notice tone={note.tone}>{note.text}</Notice>}
    </section>
  );
}
