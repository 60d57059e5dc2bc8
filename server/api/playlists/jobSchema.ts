import { z } from 'zod';
import { downloadStatuses } from '../../db/downloads.js';
import type { PresentedJob } from '../../domain/downloads/present.js';
import type { Same } from '../../http/same.js';

/**
 * A download job on the wire (api.md 4.10 and what the clients read): every field of
 * domain/downloads/present.ts, so the OpenAPI document, and the renderer types generated from it,
 * describe the whole job. The type check below fails the build when the two drift apart.
 */
export const downloadJobSchema = z.object({
  id: z.string(),
  status: z.enum(downloadStatuses),
  phase: z.enum(['search', 'download', 'verify', 'file']).nullable(),
  artistName: z.string(),
  trackName: z.string(),
  albumName: z.string().nullable(),
  playlistType: z.string(),
  playlistId: z.string().nullable(),
  albumRequestId: z.string().nullable(),
  userId: z.number().int().nullable(),
  streamFormat: z.string().nullable(),
  downloadSource: z.string().nullable(),
  progress: z.number(),
  stagingPath: z.string().nullable(),
  finalPath: z.string().nullable(),
  error: z.string().nullable(),
  blockReason: z.string().nullable(),
  artistMbid: z.string().nullable(),
  albumMbid: z.string().nullable(),
  recordingMbid: z.string().nullable(),
  trackNumber: z.number().int().nullable(),
  durationMs: z.number().nullable(),
  /** The length the file should have and where that came from (the request, or MusicBrainz). */
  expectedLength: z.object({ ms: z.number().nullable(), source: z.string() }).nullable(),
  /** The real length of the file that arrived. */
  fileDurationMs: z.number().nullable(),
  /** The length its source announced (slskd, yt-dlp). */
  announcedDurationMs: z.number().nullable(),
  /** What the file's acoustic fingerprint says (AcoustID). */
  identity: z.object({ status: z.string(), note: z.string().nullable(), recordingMbid: z.string().nullable() }).nullable(),
  quality: z
    .object({ format: z.string(), bitrate: z.number().nullable(), sampleRate: z.number().nullable(), bitDepth: z.number().nullable(), tier: z.string().nullable() })
    .nullable(),
  upgrade: z.boolean(),
  reused: z.boolean(),
  createdAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
  blockedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
});

/** Fails to compile when present.ts and this schema disagree on a field. */
export const presentedJobMatchesSchema: Same<z.infer<typeof downloadJobSchema>, PresentedJob> = true;
