import type { DownloadJobRow } from '../../db/downloads.js';
import { readState } from './state.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** api.md's download job (id, status, artistName, trackName, playlistType, streamFormat) and the fields clients read (reference §3.1). */
export function presentJob(j: DownloadJobRow) {
  return {
    id: String(j.id),
    status: j.status,
    phase: j.phase,
    artistName: j.artistName,
    trackName: j.trackName,
    albumName: j.albumName,
    playlistType: j.playlistType,
    playlistId: j.playlistId,
    albumRequestId: j.albumId === null ? null : String(j.albumId),
    userId: j.userId,
    streamFormat: j.streamFormat,
    downloadSource: j.downloadSource,
    progress: j.progress,
    stagingPath: j.stagingPath,
    finalPath: j.finalPath,
    error: j.error,
    blockReason: j.blockReason,
    artistMbid: j.artistMbid,
    albumMbid: j.albumMbid,
    recordingMbid: j.recordingMbid,
    trackNumber: j.trackNumber,
    durationMs: j.durationMs,
    /** Issue 26: the expected length and where it came from, the real length of the file, and what its fingerprint says. */
    expectedLength: j.durationMs ? { ms: j.durationMs, source: j.durationSource ?? 'request' } : j.durationSource ? { ms: null, source: j.durationSource } : null,
    fileDurationMs: j.fileDurationMs,
    announcedDurationMs: announcedOf(j),
    identity: j.identity ? { status: j.identity, note: j.identityNote, recordingMbid: j.identityRecordingMbid } : null,
    quality: j.format
      ? { format: j.format, bitrate: j.bitrate, sampleRate: j.sampleRate, bitDepth: j.bitDepth, tier: j.qualityTier }
      : null,
    upgrade: j.upgrade === 1,
    reused: j.reusedTrackId !== null,
    createdAt: iso(j.createdAt),
    updatedAt: iso(j.updatedAt),
    blockedAt: iso(j.blockedAt),
    completedAt: iso(j.completedAt),
  };
}

/** The length the chosen source announced for its file (slskd's `length`, yt-dlp's `duration`). */
function announcedOf(j: DownloadJobRow): number | null {
  if (!j.sourceState) return null;
  return readState(j).chosen?.durationMs ?? null;
}

export type PresentedJob = ReturnType<typeof presentJob>;
