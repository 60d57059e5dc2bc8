/**
 * What the downloads screens decide from job data alone: grouping, ordering, labels; and the job's
 * shape (types only are imported). No requests here, so vitest can pin it.
 */

import type { Answer } from '../wire.js';

/** A download job as the server presents it (generated from the route's schema: renderer/src/wire.ts). */
export type DownloadJob = Answer<'/api/playlists/jobs'>[number];
export type JobStatus = DownloadJob['status'];
export type JobPhase = NonNullable<DownloadJob['phase']>;
export type JobQuality = NonNullable<DownloadJob['quality']>;

/** What a connection test answers; `message` says what was found, including what still needs fixing. */
export interface TestAnswer {
  success: boolean;
  message?: string;
  version?: string;
  downloadsFolder?: { reachable: boolean; reason: string | null };
  completedFolder?: { readable: boolean; reason: string | null };
  [key: string]: unknown;
}

export interface JobGroups {
  /** Waiting or transferring: downloading first, then by age. */
  active: DownloadJob[];
  /** Held for a decision on the review screen, oldest first. */
  review: DownloadJob[];
  /** Finished one way or another, most recent first. */
  history: DownloadJob[];
}

const time = (iso: string | null | undefined) => (iso ? Date.parse(iso) || 0 : 0);
const byId = (a: DownloadJob, b: DownloadJob) => Number(a.id) - Number(b.id) || a.id.localeCompare(b.id);

export function groupJobs(jobs: DownloadJob[]): JobGroups {
  const active: DownloadJob[] = [];
  const review: DownloadJob[] = [];
  const history: DownloadJob[] = [];
  for (const j of jobs) {
    if (j.status === 'pending' || j.status === 'downloading') active.push(j);
    else if (j.status === 'blocked') review.push(j);
    else history.push(j);
  }
  active.sort((a, b) => Number(b.status === 'downloading') - Number(a.status === 'downloading') || time(a.createdAt) - time(b.createdAt) || byId(a, b));
  review.sort((a, b) => time(a.blockedAt ?? a.updatedAt) - time(b.blockedAt ?? b.updatedAt) || byId(a, b));
  history.sort((a, b) => time(b.completedAt ?? b.updatedAt) - time(a.completedAt ?? a.updatedAt) || byId(b, a));
  return { active, review, history };
}

/**
 * The list after a live event: the job replaced or added. An event older than what the list holds
 * (a poll answered after a newer event) is ignored, so a job never goes back in time.
 */
export function upsertJob(jobs: DownloadJob[], job: DownloadJob): DownloadJob[] {
  const index = jobs.findIndex((j) => j.id === job.id);
  if (index === -1) return [...jobs, job];
  if (time(job.updatedAt) < time(jobs[index]!.updatedAt)) return jobs;
  const next = jobs.slice();
  next[index] = job;
  return next;
}

/** A fresh list from the server, keeping any job a live event has moved on since the request left. */
export function mergeFetched(current: DownloadJob[], fetched: DownloadJob[]): DownloadJob[] {
  const known = new Map(current.map((j) => [j.id, j]));
  return fetched.map((j) => {
    const mine = known.get(j.id);
    return mine && time(mine.updatedAt) > time(j.updatedAt) ? mine : j;
  });
}

/** 0..100, whole numbers; anything else the server might send is clamped. */
export function clampProgress(progress: unknown): number {
  const n = typeof progress === 'number' && Number.isFinite(progress) ? progress : 0;
  return Math.round(Math.min(100, Math.max(0, n)));
}

/** What an active job is doing right now, in a few words. */
export function progressText(job: Pick<DownloadJob, 'status' | 'phase' | 'progress' | 'downloadSource'>): string {
  if (job.status === 'pending') return job.phase === 'search' ? 'Searching again soon' : 'Waiting to start';
  if (job.status !== 'downloading') return statusLabel(job.status);
  const from = job.downloadSource ? ` from ${sourceLabel(job.downloadSource)}` : '';
  switch (job.phase) {
    case 'search':
      return 'Searching the sources';
    case 'download':
      return `Downloading${from} · ${clampProgress(job.progress)}%`;
    case 'verify':
      return 'Checking the file';
    case 'file':
      return 'Adding to the library';
    default:
      return `Downloading${from}`;
  }
}

/** A progress bar shows a value only while bytes move; before that it is indeterminate. */
export function progressValue(job: Pick<DownloadJob, 'status' | 'phase' | 'progress'>): number | null {
  if (job.status !== 'downloading') return null;
  if (job.phase === 'download' || job.phase === 'verify' || job.phase === 'file') return clampProgress(job.phase === 'download' ? job.progress : 100);
  return null;
}

const STATUS: Record<string, string> = {
  pending: 'Waiting',
  downloading: 'Downloading',
  blocked: 'Needs review',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export function statusLabel(status: string): string {
  return STATUS[status] ?? status;
}

const SOURCES: Record<string, string> = { slskd: 'Soulseek (slskd)', usenet: 'Usenet', ytdlp: 'yt-dlp', sabnzbd: 'Usenet (SABnzbd)', nzbget: 'Usenet (NZBGet)', library: 'your library' };

export function sourceLabel(source: string | null | undefined): string {
  if (!source) return 'no source yet';
  return SOURCES[source] ?? source;
}

/** m:ss of a length in milliseconds; `—` when unknown. */
export function lengthText(ms: number | null | undefined): string {
  if (!ms || ms <= 0) return '—';
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

const LENGTH_SOURCES: Record<string, string> = {
  request: 'from the request',
  'musicbrainz:recording': 'MusicBrainz, by recording',
  'musicbrainz:release': 'MusicBrainz, from the release',
  'musicbrainz:search': 'MusicBrainz, by artist and title',
  none: 'not known to MusicBrainz',
};

/** `3:23 (MusicBrainz, by artist and title)`; `unknown (…)` when nothing knew it. */
export function expectedLengthText(e: DownloadJob['expectedLength']): string {
  if (!e) return 'unknown';
  const from = LENGTH_SOURCES[e.source] ?? e.source;
  return e.ms ? `${lengthText(e.ms)} (${from})` : `unknown (${from})`;
}

const IDENTITY: Record<string, string> = {
  verified: 'Verified by its sound (AcoustID)',
  different: 'Sounds like another recording (AcoustID)',
  unknown: 'Not recognised by AcoustID',
  skipped: 'Not checked by sound',
};

/** The fingerprint verdict in words, with its note. */
export function identityText(i: DownloadJob['identity']): string {
  if (!i) return '';
  const head = IDENTITY[i.status] ?? i.status;
  return i.note ? `${head}: ${i.note}` : head;
}

/** `FLAC · 24-bit / 96 kHz`, `MP3 · 320 kbps`; empty when the file was not read yet. */
export function qualityText(q: JobQuality | null | undefined): string {
  if (!q || !q.format) return '';
  const parts = [q.format.toUpperCase()];
  if (q.bitDepth && q.sampleRate) parts.push(`${q.bitDepth}-bit / ${formatRate(q.sampleRate)}`);
  else if (q.bitrate) parts.push(`${Math.round(q.bitrate >= 10_000 ? q.bitrate / 1000 : q.bitrate)} kbps`);
  else if (q.sampleRate) parts.push(formatRate(q.sampleRate));
  return parts.join(' · ');
}

function formatRate(hz: number): string {
  const khz = hz / 1000;
  return `${Number.isInteger(khz) ? khz : khz.toFixed(1)} kHz`;
}

/** The tracks of one requested album among the jobs (or a lone track), with how far it got overall. */
export interface AlbumGroup {
  key: string;
  albumRequestId: string | null;
  albumName: string | null;
  artistName: string;
  jobs: DownloadJob[];
  done: number;
  total: number;
  /** Mean progress over the tracks, finished ones counted as 100. */
  progress: number;
}

/**
 * Groups active jobs by the album request they belong to, in the order of their first track;
 * `all` (every known job) gives each album its done/total counts, so an album reads "3 of 10".
 */
export function albumGroups(active: DownloadJob[], all: DownloadJob[] = active): AlbumGroup[] {
  const groups = new Map<string, AlbumGroup>();
  for (const j of active) {
    const key = j.albumRequestId ? `album:${j.albumRequestId}` : `job:${j.id}`;
    let g = groups.get(key);
    if (!g) {
      g = { key, albumRequestId: j.albumRequestId ?? null, albumName: j.albumName, artistName: j.artistName, jobs: [], done: 0, total: 0, progress: 0 };
      groups.set(key, g);
    }
    g.jobs.push(j);
  }
  for (const g of groups.values()) {
    const members = g.albumRequestId ? all.filter((j) => j.albumRequestId === g.albumRequestId) : g.jobs;
    const tracks = members.length ? members : g.jobs;
    g.total = tracks.length;
    g.done = tracks.filter((j) => j.status === 'done').length;
    const sum = tracks.reduce((s, j) => s + (j.status === 'done' ? 100 : j.status === 'downloading' && j.phase === 'download' ? clampProgress(j.progress) : 0), 0);
    g.progress = g.total ? Math.round(sum / g.total) : 0;
    g.jobs.sort((a, b) => (a.trackNumber ?? 0) - (b.trackNumber ?? 0));
  }
  return [...groups.values()];
}

/** A connection test's body: the fields as typed, without empty ones (absent means "the saved value"). */
export function testBody(values: Record<string, unknown>, fields: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fields) {
    const v = values[f];
    if (typeof v === 'string' && v.trim() !== '') out[f] = v.trim();
  }
  return out;
}

/** How a successful test reads: a warning when the service answered but cannot be used as it is (folder unreachable, no indexer). */
export function testOutcome(answer: TestAnswer): { tone: 'success' | 'warn'; text: string } {
  const folderProblem =
    (answer.downloadsFolder && !answer.downloadsFolder.reachable) || (answer.completedFolder && !answer.completedFolder.readable) || answer.usenetIndexers === 0;
  const text = answer.message ?? (answer.version ? `Connected (version ${answer.version})` : 'Connected');
  return { tone: folderProblem ? 'warn' : 'success', text };
}

/** The number of whole units, for inputs that must be integers; null when the text is not one. */
export function parseWhole(text: string, min: number, max: number): number | null {
  if (!/^\s*\d+\s*$/.test(text)) return null;
  const n = Number(text);
  return n >= min && n <= max ? n : null;
}
