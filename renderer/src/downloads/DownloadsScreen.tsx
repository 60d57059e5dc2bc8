import { useMemo, useState } from 'preact/hooks';
import { ApiError, api } from '../api';
import { Empty, ErrorMessage, Loading, Notice, useAction, useAsync } from '../components/ui';
import { Link } from '../router';
import { isAdmin, session } from '../session';
import { socketState } from '../socket';
import { useStore } from '../store';
import { albumStatus, cancelAlbum, cancelJob, clearFinished, researchMissing, type AlbumStatus, type DownloadJob } from './api';
import { albumGroups, groupJobs, progressText, progressValue, qualityText, sourceLabel, statusLabel, type AlbumGroup } from './logic';
import { useJobs, type JobsState } from './useJobs';
import './downloads.css';
import { inWords } from '../messages';

/** How many finished jobs the history shows before "Show more". */
const HISTORY_PAGE = 50;

/** Every download job the user may see: what runs now, what waits for review, what finished. */
export function DownloadsScreen() {
  const state = useJobs();
  const groups = useMemo(() => groupJobs(state.jobs ?? []), [state.jobs]);
  const albums = useMemo(() => albumGroups(groups.active, state.jobs ?? []), [groups.active, state.jobs]);
  const [note, setNote] = useState<string | null>(null);
  const [shown, setShown] = useState(HISTORY_PAGE);

  const retry = useAction(async () => {
    setNote(null);
    const answer = await researchMissing();
    setNote(answer.queued === 0 ? 'Nothing to search again.' : `Searching again for ${answer.queued} track${answer.queued === 1 ? '' : 's'}.`);
    await state.refresh();
  });
  const clear = useAction(async () => {
    setNote(null);
    const answer = await clearFinished();
    setNote(`Cleared ${answer.deleted} finished download${answer.deleted === 1 ? '' : 's'}. Their files stay in the library.`);
    await state.refresh();
  });
  const retryable = groups.history.some((j) => j.status === 'failed' || j.status === 'cancelled');

  return (
    <div class="downloads">
      <div class="list-actions">
        <h1>Downloads</h1>
        <LiveState />
      </div>
      <NoSourceNotice />
      {state.jobs === null && !state.error && state.available && <Loading label="Loading downloads…" />}
      <ErrorMessage error={state.error} onRetry={() => void state.refresh()} />
      {!state.available && (
        <Empty title="Downloads are not available in this build.">
          <p>This server does not run downloads of its own.</p>
        </Empty>
      )}
      {state.available && state.jobs !== null && (
        <>
          {note && <Notice tone="success">{note}</Notice>}
          <ErrorMessage error={retry.error ?? clear.error} />
          <section class="download-section" aria-labelledby="active-title">
            <h2 id="active-title">
              Active <span class="badge">{groups.active.length}</span>
            </h2>
            {albums.length === 0 ? (
              <p class="muted">Nothing is downloading right now.</p>
            ) : (
              <ul class="album-groups" aria-label="Active downloads">
                {albums.map((g) => (
                  <li key={g.key}>
                    <ActiveGroup group={g} state={state} />
                  </li>
                ))}
              </ul>
            )}
          </section>

          <section class="download-section" aria-labelledby="review-title">
            <h2 id="review-title">
              Needs review <span class={`badge${groups.review.length ? ' badge-warn' : ''}`}>{groups.review.length}</span>
            </h2>
            {groups.review.length === 0 ? (
              <p class="muted">No download waits for your decision.</p>
            ) : (
              <>
                <p>
                  {groups.review.length === 1 ? 'One download was held back' : `${groups.review.length} downloads were held back`} because the file may not be the
                  right one. <Link href="/review">Review them</Link>
                </p>
                <ul class="job-list" aria-label="Downloads to review">
                  {groups.review.map((j) => (
                    <li key={j.id} class="job-row" data-status={j.status}>
                      <JobTitle job={j} />
                      <p class="job-detail small">
                        <span class="badge badge-warn">Needs review</span> {j.blockReason ?? 'Held for review'}
                      </p>
                    </li>
                  ))}
                </ul>
              </>
            )}
          </section>

          <section class="download-section" aria-labelledby="history-title">
            <div class="list-actions">
              <h2 id="history-title">
                History <span class="badge">{groups.history.length}</span>
              </h2>
              <div class="history-actions">
                <button type="button" disabled={!retryable || retry.busy} onClick={() => void retry.trigger()}>
                  {retry.busy ? 'Searching…' : 'Retry failed and cancelled'}
                </button>
                <button type="button" disabled={groups.history.length === 0 || clear.busy} onClick={() => void clear.trigger()}>
                  {clear.busy ? 'Clearing…' : 'Clear finished'}
                </button>
              </div>
            </div>
            {groups.history.length === 0 ? (
              <p class="muted">No finished downloads.</p>
            ) : (
              <ul class="job-list" aria-label="Finished downloads">
                {groups.history.slice(0, shown).map((j) => (
                  <li key={j.id} class="job-row" data-status={j.status}>
                    <HistoryRow job={j} onRetry={() => void retry.trigger()} retrying={retry.busy} />
                  </li>
                ))}
              </ul>
            )}
            {groups.history.length > shown && (
              <button type="button" class="link-button" onClick={() => setShown(shown + HISTORY_PAGE)}>
                Show more ({groups.history.length - shown} left)
              </button>
            )}
          </section>
        </>
      )}
    </div>
  );
}

function LiveState() {
  const live = useStore(socketState) === 'open';
  return (
    <span class="muted small" data-testid="live-state">
      {live ? 'Live' : 'Updating every 5 seconds'}
    </span>
  );
}

function JobTitle({ job }: { job: DownloadJob }) {
  return (
    <p class="job-title">
      <strong>{job.trackName}</strong>
      <span class="muted">
        {' '}
        by {job.artistName}
        {job.albumName ? ` · ${job.albumName}` : ''}
      </span>
    </p>
  );
}

/** One album's active tracks (or one lone track) with the album's overall progress. */
function ActiveGroup({ group, state }: { group: AlbumGroup; state: JobsState }) {
  const album = group.albumRequestId !== null;
  return (
    <div class={album ? 'album-group' : undefined}>
      {album && <AlbumHeader group={group} />}
      <ul class="job-list" aria-label={album ? `Tracks of ${group.albumName ?? 'the album'}` : undefined}>
        {group.jobs.map((j) => (
          <li key={j.id} class="job-row" data-status={j.status}>
            <ActiveRow job={j} state={state} />
          </li>
        ))}
      </ul>
    </div>
  );
}

function AlbumHeader({ group }: { group: AlbumGroup }) {
  const id = group.albumRequestId!;
  // Fetched again whenever a track of the album finishes; an album the server does not know reads nothing.
  const status = useAsync(async (signal): Promise<AlbumStatus | null> => {
    try {
      return await albumStatus(id, signal);
    } catch (err) {
      if (err instanceof ApiError && (err.status === 404 || err.status === 403)) return null;
      throw err;
    }
  }, [id, group.done]);
  const cancel = useAction(async () => {
    const answer = await cancelAlbum(id);
    if (answer.albumStatus) status.setData(answer.albumStatus);
    else status.reload();
  });
  const name = group.albumName ?? 'Album';
  // The server counts the whole album (tracks this list may not hold); the list's own count otherwise.
  const counts = status.data?.counts;
  const done = counts && typeof counts.total === 'number' ? (counts.complete ?? 0) : group.done;
  const total = counts && typeof counts.total === 'number' ? counts.total : group.total;
  const progress = typeof status.data?.progress === 'number' ? Math.max(group.progress, Math.round(status.data.progress)) : group.progress;
  return (
    <div class="album-head">
      <div class="album-head-text">
        <p class="job-title">
          <strong>{name}</strong> <span class="muted">by {group.artistName}</span>
        </p>
        <p class="small muted">
          {done} of {total} track{total === 1 ? '' : 's'} done
          {status.data ? ` · ${statusLabelOfAlbum(status.data.status)}` : ''}
        </p>
        <progress max={100} value={progress} aria-label={`Progress of ${name}`} />
        {status.data?.recovery && <p class="small job-error">{inWords(status.data.recovery.message)}</p>}
        <ErrorMessage error={cancel.error} />
      </div>
      <button type="button" disabled={cancel.busy} onClick={() => void cancel.trigger()} aria-label={`Cancel the album ${name}`}>
        {cancel.busy ? 'Cancelling…' : 'Cancel album'}
      </button>
    </div>
  );
}

const ALBUM_STATUS: Record<string, string> = {
  complete: 'complete',
  downloading: 'downloading',
  queued: 'queued',
  blocked: 'waiting for review',
  cancelled: 'cancelled',
  failed: 'failed',
  partial: 'partly downloaded',
  missing: 'missing',
};
const statusLabelOfAlbum = (s: string) => ALBUM_STATUS[s] ?? s;

function ActiveRow({ job, state }: { job: DownloadJob; state: JobsState }) {
  const cancel = useAction(async () => {
    const answer = await cancelJob(job.id);
    if (answer.job) state.apply(answer.job);
    else await state.refresh();
  });
  const value = progressValue(job);
  return (
    <>
      <div class="job-main">
        <JobTitle job={job} />
        <div class="job-progress">
          <progress max={100} value={value ?? undefined} aria-label={`Progress of ${job.trackName}`} data-progress={value ?? ''} />
          <span class="small muted" data-testid="job-progress-text">
            {progressText(job)}
          </span>
        </div>
        <ErrorMessage error={cancel.error} />
      </div>
      <button type="button" disabled={cancel.busy} onClick={() => void cancel.trigger()} aria-label={`Cancel ${job.trackName}`}>
        {cancel.busy ? 'Cancelling…' : 'Cancel'}
      </button>
    </>
  );
}

function HistoryRow({ job, onRetry, retrying }: { job: DownloadJob; onRetry: () => void; retrying: boolean }) {
  const quality = qualityText(job.quality);
  const canRetry = job.status === 'failed' || job.status === 'cancelled';
  return (
    <>
      <div class="job-main">
        <JobTitle job={job} />
        <p class="job-detail small">
          <span class={`badge status-${job.status}`}>{statusLabel(job.status)}</span>
          {job.status === 'done' && <span class="muted"> {job.reused ? 'Already in your library' : `From ${sourceLabel(job.downloadSource)}`}</span>}
          {quality && <span class="muted"> · {quality}</span>}
        </p>
        {job.status === 'failed' && job.error && <p class="small job-error">{job.error}</p>}
      </div>
      {canRetry && (
        <button type="button" disabled={retrying} onClick={onRetry} aria-label={`Retry ${job.trackName}`} title="Searches again for every failed and cancelled track">
          Retry
        </button>
      )}
    </>
  );
}

/**
 * With no download source set up (an administrator sees the clients), says which sources exist and
 * links to where they are set up, so an empty Downloads screen is not a dead end.
 */
function NoSourceNotice() {
  const admin = isAdmin(useStore(session).user);
  const clients = useAsync(
    (signal) => (admin ? api<{ clients: { configured: boolean; enabled: boolean }[] }>('/api/settings/download-clients', { signal }) : Promise.resolve(null)),
    [admin],
  );
  if (!admin || !clients.data || clients.data.clients.some((c) => c.configured && c.enabled)) return null;
  return (
    <Notice tone="warn" reveal={false}>
      <span data-testid="no-download-source">
        No download source is set up, so nothing can be downloaded yet. Tonearm downloads from slskd (Soulseek), Usenet (Prowlarr with SABnzbd or NZBGet) and yt-dlp, and
        hands requests to Lidarr when it is connected. <Link href="/settings/downloads">Set one up in Settings → Downloads</Link>.
      </span>
    </Notice>
  );
}
