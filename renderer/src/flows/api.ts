import { api } from '../api';
import type { Answer, Body, Named } from '../wire.js';

/** GET /api/playlists/status (and its `playlist_status` push), as the route's schema describes it. */
export type PlaylistStatus = Answer<'/api/playlists/status'>;

/** A flow as the flow routes answer it. */
export type Flow = Answer<'/api/playlists/flows/{flowId}'>['flow'];
export type FlowRun = NonNullable<Flow['currentRun']>;
/** Job counts by download status, with their total. */
export type JobCounts = Flow['stats'];

/** The four flow sources and their weights in percent (reference §3.8). */
export type Mix = Flow['mix'];
export const MIX_SOURCES = ['discover', 'mix', 'trending', 'focus'] as const satisfies readonly (keyof Mix)[];
export type MixSource = (typeof MIX_SOURCES)[number];

export type FlowTemplate = Answer<'/api/playlists/flow-templates'>['templates'][number];
export type OperationItem = PlaylistStatus['operationQueue']['items'][number];
export type FlowJob = Answer<'/api/playlists/jobs/{flowId}'>[number];

/**
 * What the form sends: every field of a flow made from scratch, as POST /api/playlists/flows (and
 * PUT /flows/:flowId) take them, here all required and `mix` with its four weights.
 * `showInLibrary`: the flow's downloaded tracks are library content too (else only its playlist
 * holds them); `onePerArtist`: at most one track per artist (release radar).
 */
export type FlowInput = Required<
  Pick<
    Named<Body<'/api/playlists/flows', 'post'>>,
    'name' | 'size' | 'tags' | 'relatedArtists' | 'deepDive' | 'showInLibrary' | 'onePerArtist' | 'yearFrom' | 'yearTo' | 'scheduleDays' | 'scheduleTime'
  >
> & { mix: Mix };

const base = '/api/playlists';
const enc = encodeURIComponent;

export const flowsApi = {
  status: (signal?: AbortSignal) => api<PlaylistStatus>(`${base}/status`, signal ? { signal } : {}),
  templates: () => api<Answer<'/api/playlists/flow-templates'>>(`${base}/flow-templates`).then((r) => r.templates),
  createFromTemplate: (templateId: string) => api<Answer<'/api/playlists/flows', 'post'>>(`${base}/flows`, { method: 'POST', body: { templateId } }).then((r) => r.flow),
  create: (input: FlowInput) => api<Answer<'/api/playlists/flows', 'post'>>(`${base}/flows`, { method: 'POST', body: input }).then((r) => r.flow),
  update: (id: string, input: FlowInput) => api<Answer<'/api/playlists/flows/{flowId}', 'put'>>(`${base}/flows/${enc(id)}`, { method: 'PUT', body: input }).then((r) => r.flow),
  remove: (id: string) => api<Answer<'/api/playlists/flows/{flowId}', 'delete'>>(`${base}/flows/${enc(id)}`, { method: 'DELETE' }),
  setEnabled: (id: string, enabled: boolean) => api<Answer<'/api/playlists/flows/{flowId}/enabled', 'put'>>(`${base}/flows/${enc(id)}/enabled`, { method: 'PUT', body: { enabled } }),
  start: (id: string) => api<Answer<'/api/playlists/start/{flowId}', 'post'>>(`${base}/start/${enc(id)}`, { method: 'POST' }),
  jobs: (id: string) => api<Answer<'/api/playlists/jobs/{flowId}'>>(`${base}/jobs/${enc(id)}`),
  research: (flowId: string, jobId: string) => api<Answer<'/api/playlists/flows/{flowId}/tracks/{jobId}/research', 'post'>>(`${base}/flows/${enc(flowId)}/tracks/${enc(jobId)}/research`, { method: 'POST' }),
  keepAsStatic: (id: string) => api<Answer<'/api/playlists/flows/{flowId}/static-playlist', 'post'>>(`${base}/flows/${enc(id)}/static-playlist`, { method: 'POST', body: {} }),
  importList: (id: string) => api<Answer<'/api/playlists/flows/{flowId}/lidarr-import-list'>>(`${base}/flows/${enc(id)}/lidarr-import-list`),
};

/** A finished job's file, playable with a stream token (the route takes `st` like every media route). */
export const jobStreamUrl = (jobId: string, token: string) => `${base}/stream/${enc(jobId)}?st=${enc(token)}`;
