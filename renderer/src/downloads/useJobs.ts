import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { socketState } from '../socket';
import { useStore } from '../store';
import { listJobs, watchJobs, type DownloadJob, type JobEvent, type JobStatus } from './api';
import { mergeFetched, upsertJob } from './logic';

/** How often the list is fetched again while the live socket is not open. */
export const POLL_MS = 5000;

export interface JobsState {
  jobs: DownloadJob[] | null;
  error: unknown;
  /** False when this server has no download routes (404). */
  available: boolean;
  refresh: () => Promise<void>;
  /** Applies an answer the screen already has (a cancel, an approve) without waiting for the event. */
  apply: (job: DownloadJob) => void;
  remove: (id: string) => void;
}

/**
 * The user's download jobs, kept current by `job_updated` / `job_blocked` on /ws and, while the
 * socket is not open, by polling every 5 s. `keep` narrows the list (the review screen keeps the blocked).
 */
export function useJobs(options: { status?: JobStatus; keep?: (job: DownloadJob) => boolean; onEvent?: (event: JobEvent) => void } = {}): JobsState {
  const [jobs, setJobs] = useState<DownloadJob[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [available, setAvailable] = useState(true);
  const live = useStore(socketState) === 'open';
  const keep = useRef(options.keep);
  keep.current = options.keep;
  const onEvent = useRef(options.onEvent);
  onEvent.current = options.onEvent;
  const alive = useRef(true);
  useEffect(() => () => void (alive.current = false), []);

  const refresh = useCallback(async () => {
    try {
      const fetched = await listJobs({ ...(options.status && { status: options.status }), limit: 500 });
      if (!alive.current) return;
      setJobs((current) => mergeFetched(current ?? [], fetched));
      setError(null);
      setAvailable(true);
    } catch (err) {
      if (!alive.current) return;
      if (err instanceof ApiError && err.status === 404) setAvailable(false);
      else setError(err);
    }
  }, [options.status]);

  useEffect(() => {
    void refresh();
    return watchJobs((event) => {
      setJobs((current) => {
        const next = upsertJob(current ?? [], event.job);
        const filter = keep.current;
        return filter ? next.filter(filter) : next;
      });
      onEvent.current?.(event);
    });
  }, [refresh]);

  // Without the socket, poll; when it (re)opens, fetch once for what happened meanwhile.
  const wasLive = useRef(live);
  useEffect(() => {
    if (live) {
      if (!wasLive.current) void refresh();
      wasLive.current = true;
      return;
    }
    wasLive.current = false;
    const timer = setInterval(() => void refresh(), POLL_MS);
    return () => clearInterval(timer);
  }, [live, refresh]);

  const apply = useCallback((job: DownloadJob) => {
    setJobs((current) => {
      const next = upsertJob(current ?? [], job);
      return keep.current ? next.filter(keep.current) : next;
    });
  }, []);
  const remove = useCallback((id: string) => setJobs((current) => (current ?? []).filter((j) => j.id !== id)), []);
  return { jobs, error, available, refresh, apply, remove };
}
