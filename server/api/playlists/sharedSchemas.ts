import { z } from 'zod';
import type { setRetryCycle } from '../../domain/playlists/retryCycle.js';
import type { presentEntry } from '../../domain/playlists/sharedEntries.js';
import type { SharedPlaylists } from '../../domain/playlists/sharedPlaylists.js';
import type { SyncResult } from '../../domain/playlists/sharedSync.js';
import type { Same } from '../../http/same.js';
import { artworkInfo } from './artwork.js';

/**
 * The answers of the shared-playlist routes (api/playlists/shared.ts, api.md 4.10), each checked
 * below against what domain/playlists/sharedPlaylists.ts returns, so the OpenAPI document and the
 * renderer's generated types describe them whole.
 */

/** A track of a shared playlist (sharedEntries.ts presentEntry). */
export const sharedEntrySchema = z.object({
  entryId: z.number(),
  jobId: z.string().nullable().describe('the download job the track routes address; null when the job was cleared (the entry id stands in)'),
  position: z.number(),
  artistName: z.string(),
  trackName: z.string(),
  albumName: z.string().nullable(),
  durationMs: z.number().nullable(),
  recordingMbid: z.string().nullable(),
  trackId: z.string().nullable().describe('the library track, once it is there'),
  status: z.string().describe('available, processing (downloaded, joining the library), missing, or the state of its download'),
  error: z.string().nullable(),
  fromSource: z.boolean(),
  removedFromSource: z.boolean(),
});

/** A shared playlist as GET /api/playlists/shared-playlists lists it. */
export const sharedSummarySchema = z.object({
  id: z.string(),
  kind: z.literal('shared'),
  name: z.string(),
  description: z.string(),
  ownerUserId: z.number().nullable(),
  owner: z.string().nullable(),
  sourceUrl: z.string().nullable(),
  sourceFormat: z.string().nullable(),
  syncEnabled: z.boolean(),
  syncIntervalHours: z.number(),
  keepRemovedTracks: z.boolean(),
  lastSyncedAt: z.string().nullable(),
  lastSyncError: z.string().nullable(),
  retryCyclePaused: z.boolean(),
  trackCount: z.number(),
  availableCount: z.number(),
  missingCount: z.number(),
  durationMs: z.number(),
  canEdit: z.boolean(),
  artwork: artworkInfo.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
/** One shared playlist with its tracks (read, create, import, update). */
export const sharedDetailSchema = sharedSummarySchema.extend({ tracks: z.array(sharedEntrySchema) });

export const sharedDeletedSchema = z.object({ success: z.literal(true), playlistId: z.string() });
export const sharedTrackAddedSchema = z.object({ success: z.literal(true), queued: z.boolean(), track: sharedEntrySchema });
export const sharedTrackRemovedSchema = z.object({ success: z.literal(true), playlistId: z.string(), jobId: z.string() });
export const sharedResearchSchema = z.object({ success: z.literal(true), queued: z.number() });
export const sharedResearchMissingSchema = z.object({ success: z.literal(true), playlistId: z.string(), queued: z.number() });
export const sharedSyncSchema = z.object({ success: z.literal(true), playlistId: z.string(), added: z.number(), removed: z.number(), kept: z.number(), total: z.number() });
export const retryCycleSchema = z.object({ success: z.literal(true), playlistId: z.string(), kind: z.enum(['static', 'flow', 'shared']), paused: z.boolean() });

type Presented = ReturnType<SharedPlaylists['present']>;

/** Fail to compile when sharedPlaylists.ts and these schemas disagree on a field. */
export const sharedSchemasMatchDomain = {
  entry: true satisfies Same<z.infer<typeof sharedEntrySchema>, ReturnType<typeof presentEntry>>,
  summary: true satisfies Same<z.infer<typeof sharedSummarySchema>, Omit<Presented, 'tracks'>>,
  list: true satisfies Same<z.infer<typeof sharedSummarySchema>[], Omit<ReturnType<SharedPlaylists['list']>[number], 'tracks'>[]>,
  detail: true satisfies Same<z.infer<typeof sharedDetailSchema>, Omit<Presented, 'tracks'> & Required<Pick<Presented, 'tracks'>>>,
  deleted: true satisfies Same<z.infer<typeof sharedDeletedSchema>, ReturnType<SharedPlaylists['delete']>>,
  added: true satisfies Same<z.infer<typeof sharedTrackAddedSchema>, ReturnType<SharedPlaylists['addTrack']>>,
  removed: true satisfies Same<z.infer<typeof sharedTrackRemovedSchema>, ReturnType<SharedPlaylists['removeTrack']>>,
  research: true satisfies Same<z.infer<typeof sharedResearchSchema>, ReturnType<SharedPlaylists['researchTrack']>>,
  researchMissing: true satisfies Same<z.infer<typeof sharedResearchMissingSchema>, ReturnType<SharedPlaylists['researchMissing']>>,
  sync: true satisfies Same<z.infer<typeof sharedSyncSchema>, SyncResult>,
  retryCycle: true satisfies Same<z.infer<typeof retryCycleSchema>, ReturnType<typeof setRetryCycle>>,
};
