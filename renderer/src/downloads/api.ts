import { api } from '../api';
import { streamToken } from '../player/streamToken';
import { listen, type ServerMessage } from '../socket';
import type { DownloadJob, JobStatus, TestAnswer } from './logic';
import type { Answer } from '../wire.js';

export type { DownloadJob, JobPhase, JobQuality, JobStatus, TestAnswer } from './logic';

/**
 * Every request the download screens make, in one place: the job list and its actions, the worker,
 * the source connection tests, album statuses and the live job events.
 */

const job = (id: string, action: string) => `/api/playlists/jobs/${encodeURIComponent(id)}/${action}`;

export function listJobs(query: { status?: JobStatus; limit?: number; offset?: number } = {}, signal?: AbortSignal): Promise<DownloadJob[]> {
  return api<DownloadJob[]>('/api/playlists/jobs', { query, ...(signal && { signal }) });
}

/** Keeps the held file: the server files it and answers where. */
export function approveJob(id: string): Promise<{ success: boolean; path?: string }> {
  return api(job(id, 'approve'), { method: 'POST' });
}

/** Deletes the held file and never uses that source again; the job searches anew. */
export function denyJob(id: string): Promise<{ success: boolean }> {
  return api(job(id, 'deny'), { method: 'POST' });
}

/** Answers the cancelled job when the server includes it. */
export function cancelJob(id: string): Promise<{ success: boolean; job?: DownloadJob }> {
  return api(job(id, 'cancel'), { method: 'POST' });
}

/** Searches again for every failed or cancelled track the user may see. */
export function researchMissing(): Promise<{ success: boolean; queued: number }> {
  return api('/api/playlists/research-missing', { method: 'POST' });
}

/** Removes finished jobs from the list; their files stay in the library. */
export function clearFinished(): Promise<{ success: boolean; deleted: number }> {
  return api('/api/playlists/jobs/completed', { method: 'DELETE' });
}

/** The held file of a blocked job, playable by an `<audio>` element (which cannot send headers). */
export async function stagingStreamUrl(id: string): Promise<string> {
  const { token } = await streamToken();
  return `/api/playlists/staging-stream/${encodeURIComponent(id)}?st=${encodeURIComponent(token)}`;
}

/** A job event on the `playlists` channel: `job_updated` for every change, `job_blocked` when one waits for review. */
export interface JobEvent {
  type: 'job_updated' | 'job_blocked';
  job: DownloadJob;
}

/** Calls back with every job event until the returned function is called. */
export function watchJobs(onEvent: (event: JobEvent) => void): () => void {
  return listen(['playlists'], (msg: ServerMessage) => {
    if ((msg.type === 'job_updated' || msg.type === 'job_blocked') && msg.job && typeof msg.job === 'object') onEvent({ type: msg.type, job: msg.job as DownloadJob });
  });
}

// ---- the worker ----

export const qualityTiers = ['lossless', 'high', 'medium', 'low'] as const satisfies readonly WorkerSettings['qualityCutoff'][];
export type QualityTier = (typeof qualityTiers)[number];

export type WorkerSettings = Answer<'/api/playlists/worker/settings'>;

/**
 * The fields the worker form edits (the running state has its own buttons; priorities live with each
 * source; the paused playlists are the server's own bookkeeping).
 */
export type WorkerSettingsPatch = Omit<WorkerSettings, 'running' | 'sourcePriorities' | 'retryPausedPlaylistIds'>;

export function workerSettings(signal?: AbortSignal): Promise<WorkerSettings> {
  return api<WorkerSettings>('/api/playlists/worker/settings', signal ? { signal } : {});
}

export function saveWorkerSettings(patch: WorkerSettingsPatch): Promise<WorkerSettings> {
  return api<WorkerSettings>('/api/playlists/worker/settings', { method: 'PUT', body: patch });
}

export function setWorkerRunning(running: boolean): Promise<unknown> {
  return api(`/api/playlists/worker/${running ? 'start' : 'stop'}`, { method: 'POST' });
}

// ---- connection tests of the sources ----

/**
 * Tests the values being edited; absent or masked secrets are the saved ones (sent only to the saved
 * address). `name`: a download client's key (GET /api/settings/download-clients), or gotify.
 */
export function testSource(name: string, body: Record<string, string>): Promise<TestAnswer> {
  return api<TestAnswer>(`/api/settings/${name}/test`, { method: 'POST', body });
}

// ---- self-managed albums ----

export type AlbumStatusName = 'complete' | 'downloading' | 'queued' | 'blocked' | 'cancelled' | 'failed' | 'partial' | 'missing';

export type AlbumStatus = Answer<'/api/library/albums/aurral/{id}/status'>;

export function albumStatus(albumRequestId: string, signal?: AbortSignal): Promise<AlbumStatus> {
  return api<AlbumStatus>(`/api/library/albums/aurral/${encodeURIComponent(albumRequestId)}/status`, signal ? { signal } : {});
}

/** Cancels the album's unfinished tracks; finished ones stay. */
export function cancelAlbum(albumRequestId: string): Promise<{ success: boolean; cancelled?: number; albumStatus?: AlbumStatus }> {
  return api(`/api/library/albums/aurral/${encodeURIComponent(albumRequestId)}/cancel`, { method: 'POST' });
}
