import { errorText } from '../api';
import { ErrorMessage, Loading, useAction, useAsync } from '../components/ui';
import type { Track } from '../library/model';
import { playTracks } from '../player/player';
import { streamToken } from '../player/streamToken';
import { flowsApi, jobStreamUrl, type Flow, type FlowJob } from './api';

const STATUS_LABELS: Record<string, string> = {
  pending: 'Waiting',
  searching: 'Searching',
  downloading: 'Downloading',
  blocked: 'For review',
  done: 'Downloaded',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export interface FlowTracksProps {
  flow: Flow;
  /** Changes whenever the flow's counts do: the tracks are read again. */
  version: string;
}

/** The flow's download jobs (current run first), reloaded whenever its counts change. */
export function FlowTracks({ flow, version }: FlowTracksProps) {
  const jobs = useAsync(() => flowsApi.jobs(flow.id), [flow.id, version]);
  const act = useAction(async (job: FlowJob) => {
    await flowsApi.research(flow.id, job.id);
    jobs.reload();
  });
  const play = useAction(async (job: FlowJob) => {
    const done = (jobs.data ?? []).filter((j) => j.status === 'done');
    const { token } = await streamToken();
    const tracks: Track[] = done.map((j) => ({
      id: -Number(j.id),
      title: j.trackName,
      artistName: j.artistName,
      albumTitle: j.albumName ?? null,
      durationMs: j.durationMs ?? 0,
      previewUrl: jobStreamUrl(j.id, token),
    }));
    playTracks(tracks, done.indexOf(job));
  });
  if (!jobs.data) return jobs.error ? <ErrorMessage error={jobs.error} onRetry={jobs.reload} /> : <Loading label="Loading tracks…" />;
  if (jobs.data.length === 0) return <p class="muted small">No tracks yet: run the flow to fill it.</p>;
  return (
    <div class="flow-tracks">
      <ol aria-label={`Tracks of ${flow.name}`}>
        {jobs.data.map((j) => (
          <li key={j.id} class="flow-track" data-status={j.status}>
            <span class="track-title">{j.trackName}</span> <span class="muted">{j.artistName}</span>{' '}
            <span class={`job-status status-${j.status}`}>
              {STATUS_LABELS[j.status] ?? j.status}
              {j.status === 'downloading' && typeof j.progress === 'number' ? ` ${Math.round(j.progress)}%` : ''}
            </span>
            {j.error && j.status === 'failed' && <span class="muted small"> {j.error}</span>}
            {j.status === 'done' && (
              <button type="button" class="small-button" disabled={play.busy} onClick={() => void play.trigger(j)} aria-label={`Play ${j.trackName} by ${j.artistName}`}>
                Play
              </button>
            )}
            {(j.status === 'failed' || j.status === 'cancelled') && (
              <button type="button" class="small-button" disabled={act.busy} onClick={() => void act.trigger(j)} aria-label={`Search again for ${j.trackName} by ${j.artistName}`}>
                Search again
              </button>
            )}
          </li>
        ))}
      </ol>
      {(act.error !== null || play.error !== null) && (
        <p role="alert" class="form-error">
          {errorText(act.error ?? play.error)}
        </p>
      )}
    </div>
  );
}
