import { api } from '../api';

/** The four flow sources and their weights in percent (reference §3.8). */
export interface Mix {
  discover: number;
  mix: number;
  trending: number;
  focus: number;
}
export const MIX_SOURCES = ['discover', 'mix', 'trending', 'focus'] as const;
export type MixSource = (typeof MIX_SOURCES)[number];

export interface FlowRun {
  id: number;
  status: string;
  trigger: string;
  planned: number;
  reserve: number;
  error: string | null;
  createdAt: string | null;
  finishedAt: string | null;
}

export type JobCounts = Record<string, number> & { total: number };

export interface Flow {
  id: string;
  name: string;
  description: string | null;
  size: number;
  ownerUserId: number | null;
  owner?: string | null;
  enabled: boolean;
  mix: Mix;
  tags: string[];
  relatedArtists: string[];
  deepDive: boolean;
  /** The flow's downloaded tracks are library content too (else only its playlist holds them). */
  showInLibrary: boolean;
  /** At most one track per artist (release radar: else several tracks of each new album). */
  onePerArtist: boolean;
  yearFrom: number | null;
  yearTo: number | null;
  scheduleDays: number[];
  scheduleTime: string;
  templateId: string | null;
  trackCount: number;
  nextRunAt: string | null;
  lastRunAt: string | null;
  lastError: string | null;
  stats: JobCounts;
  currentRun: FlowRun | null;
}

export interface FlowTemplate {
  id: string;
  name: string;
  description: string;
  available: boolean;
  reason: string | null;
}

export interface OperationItem {
  id: string;
  type: string;
  flowId: string;
  status: string;
  /** Set while a run waits for the owner's discovery refresh to finish. */
  waitingFor?: 'discovery';
}

export interface PlaylistStatus {
  flows: Flow[];
  flowStats: JobCounts;
  hint: { phase: string; message: string };
  worker: { running: boolean; processing: boolean; activeCount: number };
  /** Flow sources: those that can be used now, and the others keyed by source with the reason. */
  capabilities?: { availableSources: string[]; unavailableSources: Record<string, string> };
  operationQueue?: { pending: number; running: number; items: OperationItem[] };
}

export interface FlowJob {
  id: string;
  status: string;
  phase?: string | null;
  artistName: string;
  trackName: string;
  albumName?: string | null;
  error: string | null;
  durationMs?: number | null;
  progress?: number | null;
}

/** What the form sends: every field of a flow made from scratch. */
export interface FlowInput {
  name: string;
  size: number;
  mix: Mix;
  tags: string[];
  relatedArtists: string[];
  deepDive: boolean;
  /** The flow's downloaded tracks are library content too (else only its playlist holds them). */
  showInLibrary: boolean;
  /** At most one track per artist (release radar: else several tracks of each new album). */
  onePerArtist: boolean;
  yearFrom: number | null;
  yearTo: number | null;
  scheduleDays: number[];
  scheduleTime: string;
}

const base = '/api/playlists';
const enc = encodeURIComponent;

export const flowsApi = {
  status: (signal?: AbortSignal) => api<PlaylistStatus>(`${base}/status`, signal ? { signal } : {}),
  templates: () => api<{ templates: FlowTemplate[] }>(`${base}/flow-templates`).then((r) => r.templates),
  createFromTemplate: (templateId: string) => api<{ flow: Flow }>(`${base}/flows`, { method: 'POST', body: { templateId } }).then((r) => r.flow),
  create: (input: FlowInput) => api<{ flow: Flow }>(`${base}/flows`, { method: 'POST', body: input }).then((r) => r.flow),
  update: (id: string, input: FlowInput) => api<{ flow: Flow }>(`${base}/flows/${enc(id)}`, { method: 'PUT', body: input }).then((r) => r.flow),
  remove: (id: string) => api(`${base}/flows/${enc(id)}`, { method: 'DELETE' }),
  setEnabled: (id: string, enabled: boolean) => api(`${base}/flows/${enc(id)}/enabled`, { method: 'PUT', body: { enabled } }),
  start: (id: string) => api<{ operationId: string }>(`${base}/start/${enc(id)}`, { method: 'POST' }),
  jobs: (id: string) => api<FlowJob[]>(`${base}/jobs/${enc(id)}`),
  research: (flowId: string, jobId: string) => api<{ queued: number }>(`${base}/flows/${enc(flowId)}/tracks/${enc(jobId)}/research`, { method: 'POST' }),
  keepAsStatic: (id: string) => api<{ playlistId: string; name: string; trackCount: number }>(`${base}/flows/${enc(id)}/static-playlist`, { method: 'POST', body: {} }),
  importList: (id: string) => api<{ url: string; itemCount: number }>(`${base}/flows/${enc(id)}/lidarr-import-list`),
};

/** A finished job's file, playable with a stream token (the route takes `st` like every media route). */
export const jobStreamUrl = (jobId: string, token: string) => `${base}/stream/${enc(jobId)}?st=${enc(token)}`;
