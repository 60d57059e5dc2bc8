import { useState } from 'preact/hooks';
import { ApiError, api } from '../api';
import { Card, Empty, ErrorMessage, Loading, useAction, useAsync } from '../components/ui';
import { streamToken } from '../player/streamToken';

interface DownloadJob {
  id: string;
  status: string;
  artistName: string;
  trackName: string;
  playlistType: string;
  streamFormat: string | null;
}

type Blocked = { available: true; jobs: DownloadJob[] } | { available: false };

/** Blocked download jobs awaiting a decision; the desktop tray's notifications open this screen. */
export function ReviewScreen() {
  const jobs = useAsync(async (signal): Promise<Blocked> => {
    try {
      return { available: true, jobs: await api<DownloadJob[]>('/api/playlists/jobs', { query: { status: 'blocked' }, signal }) };
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return { available: false };
      throw err;
    }
  }, []);
  return (
    <div class="review">
      <h1>Review downloads</h1>
      <p class="muted">Downloads that were held back because they need your decision.</p>
      {jobs.loading && !jobs.data && <Loading label="Loading blocked downloads…" />}
      <ErrorMessage error={jobs.error} onRetry={jobs.reload} />
      {jobs.data && !jobs.data.available && (
        <Empty title="Download review is not available in this build.">
          <p>This server does not run downloads yet, so nothing can be waiting for review.</p>
        </Empty>
      )}
      {jobs.data?.available && jobs.data.jobs.length === 0 && <Empty title="Nothing to review. All clear!" />}
      {jobs.data?.available && jobs.data.jobs.length > 0 && (
        <ul class="review-list">
          {jobs.data.jobs.map((job) => (
            <li key={job.id}>
              <ReviewItem job={job} onDone={() => jobs.data?.available && jobs.setData({ available: true, jobs: jobs.data.jobs.filter((j) => j.id !== job.id) })} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function ReviewItem({ job, onDone }: { job: DownloadJob; onDone: () => void }) {
  const [preview, setPreview] = useState<string | null>(null);
  const decide = useAction(async (decision: 'approve' | 'deny') => {
    await api(`/api/playlists/jobs/${encodeURIComponent(job.id)}/${decision}`, { method: 'POST' });
    onDone();
  });
  const listen = useAction(async () => {
    const { token } = await streamToken();
    setPreview(`/api/playlists/staging-stream/${encodeURIComponent(job.id)}?st=${encodeURIComponent(token)}`);
  });
  return (
    <Card>
      <p>
        <strong>{job.trackName}</strong> <span class="muted">by {job.artistName}</span>
      </p>
      <p class="muted">
        {job.playlistType}
        {job.streamFormat ? ` · ${job.streamFormat}` : ''}
      </p>
      {preview ? (
        <audio controls src={preview} aria-label={`Preview of ${job.trackName}`} />
      ) : (
        <button type="button" onClick={() => void listen.trigger()} disabled={listen.busy}>
          Listen
        </button>
      )}
      <div class="form-actions">
        <button type="button" class="primary" disabled={decide.busy} onClick={() => void decide.trigger('approve')} aria-label={`Approve ${job.trackName}`}>
          Approve
        </button>
        <button type="button" class="danger" disabled={decide.busy} onClick={() => void decide.trigger('deny')} aria-label={`Deny ${job.trackName}`}>
          Deny
        </button>
      </div>
      <ErrorMessage error={decide.error ?? listen.error} />
    </Card>
  );
}
