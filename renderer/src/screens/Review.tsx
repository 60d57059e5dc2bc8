import { useEffect, useState } from 'preact/hooks';
import { Card, Empty, ErrorMessage, Loading, Notice, useAction } from '../components/ui';
import { approveJob, denyJob, stagingStreamUrl, type DownloadJob } from '../downloads/api';
import { expectedLengthText, groupJobs, identityText, lengthText, qualityText, sourceLabel } from '../downloads/logic';
import { useJobs } from '../downloads/useJobs';
import { Link } from '../router';
import '../downloads/downloads.css';
import { withBase } from '../base';
import { dateTime } from '../time';

interface Outcome {
  id: string;
  text: string;
}

const isBlocked = (j: DownloadJob) => j.status === 'blocked';

/** Blocked download jobs awaiting a decision; the desktop tray's notifications open this screen. */
export function ReviewScreen() {
  const [outcomes, setOutcomes] = useState<Outcome[]>([]);
  const [arrived, setArrived] = useState<string | null>(null);
  const jobs = useJobs({
    status: 'blocked',
    keep: isBlocked,
    onEvent: (e) => {
      if (e.type === 'job_blocked') setArrived(`New download to review: ${e.job.trackName} by ${e.job.artistName}.`);
    },
  });
  const blocked = groupJobs(jobs.jobs ?? []).review;
  const decided = (job: DownloadJob, text: string) => {
    setOutcomes((list) => [{ id: `${job.id}:${Date.now()}`, text }, ...list].slice(0, 5));
    jobs.remove(job.id);
  };
  return (
    <div class="review">
      <h1>Review downloads</h1>
      <p class="muted">
        Downloads that were held back because the file may not be the right one. Listen, then keep it or let Tonearm look for another copy. All downloads are on the{' '}
        <Link href="/downloads">Downloads</Link> screen.
      </p>
      {jobs.jobs === null && !jobs.error && jobs.available && <Loading label="Loading blocked downloads…" />}
      <ErrorMessage error={jobs.error} onRetry={() => void jobs.refresh()} />
      <div aria-live="polite">
        {outcomes.map((o) => (
          <Notice key={o.id} tone="success">
            {o.text}
          </Notice>
        ))}
        {arrived && (
          <Notice tone="info" reveal={false}>
            {arrived}
          </Notice>
        )}
      </div>
      {!jobs.available && (
        <Empty title="Download review is not available in this build.">
          <p>This server does not run downloads yet, so nothing can be waiting for review.</p>
        </Empty>
      )}
      {jobs.available && jobs.jobs !== null && blocked.length === 0 && <Empty title="Nothing to review. All clear!" />}
      {blocked.length > 0 && (
        <ul class="review-list" aria-label="Downloads to review">
          {blocked.map((job) => (
            <li key={job.id}>
              <ReviewItem job={job} onDecided={(text) => decided(job, text)} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function ReviewItem({ job, onDecided }: { job: DownloadJob; onDecided: (text: string) => void }) {
  const [preview, setPreview] = useState<string | null>(null);
  const [previewError, setPreviewError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    stagingStreamUrl(job.id).then(
      (url) => live && setPreview(url),
      (err: unknown) => live && setPreviewError(err),
    );
    return () => void (live = false);
  }, [job.id]);
  const decide = useAction(async (decision: 'approve' | 'deny') => {
    if (decision === 'approve') {
      const answer = await approveJob(job.id);
      onDecided(`Kept “${job.trackName}”${answer.path ? `: filed as ${answer.path}` : ''}.`);
    } else {
      await denyJob(job.id);
      onDecided(`Denied “${job.trackName}”: the file was deleted and Tonearm looks for another copy (never from the same source again).`);
    }
  });
  const quality = qualityText(job.quality);
  const title = `${job.trackName} by ${job.artistName}`;
  return (
    <Card>
      <article aria-label={title}>
        <p class="job-title">
          <strong>{job.trackName}</strong> <span class="muted">by {job.artistName}</span>
        </p>
        <p class="review-reason notice notice-warn" data-testid="block-reason">
          {job.blockReason ?? 'Held for review.'}
        </p>
        <dl class="review-facts">
          <dt>Album</dt>
          <dd>{job.albumName ?? '—'}</dd>
          <dt>Source</dt>
          <dd>{sourceLabel(job.downloadSource)}</dd>
          {quality && (
            <>
              <dt>File</dt>
              <dd>{quality}</dd>
            </>
          )}
          <dt>Expected length</dt>
          <dd data-testid="expected-length">{expectedLengthText(job.expectedLength)}</dd>
          <dt>File length</dt>
          <dd data-testid="file-length">
            {lengthText(job.fileDurationMs)}
            {job.announcedDurationMs ? ` (the source announced ${lengthText(job.announcedDurationMs)})` : ''}
          </dd>
          {job.identity && (
            <>
              <dt>Sound</dt>
              <dd data-testid="identity">{identityText(job.identity)}</dd>
            </>
          )}
          {job.blockedAt && (
            <>
              <dt>Held since</dt>
              <dd>{dateTime(job.blockedAt)}</dd>
            </>
          )}
        </dl>
        {preview ? (
          <audio controls preload="none" src={withBase(preview)} aria-label={`Preview of ${job.trackName}`} data-testid="review-preview" />
        ) : (
          !previewError && <Loading label="Preparing the preview…" />
        )}
        <ErrorMessage error={previewError} />
        <div class="form-actions">
          <button type="button" class="primary" disabled={decide.busy} onClick={() => void decide.trigger('approve')} aria-label={`Approve ${job.trackName}`}>
            Approve
          </button>
          <button type="button" class="danger" disabled={decide.busy} onClick={() => void decide.trigger('deny')} aria-label={`Deny ${job.trackName}`}>
            Deny
          </button>
        </div>
        <ErrorMessage error={decide.error} />
      </article>
    </Card>
  );
}
