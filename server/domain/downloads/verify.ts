import path from 'node:path';
import type { DownloadJobRow } from '../../db/downloads.js';
import { misnamedAudio } from '../../library/audioContent.js';
import { readTagsOffThread } from '../../library/tagThread.js';
import type { FileTags } from '../../library/tags.js';
import type { ReplayGain } from '../../library/replayGain.js';
import { coverage, isLosslessFormat, similarity } from './scoring.js';

/**
 * Checks a downloaded file before it is filed: it must hold readable audio, last about as long as
 * the wanted track, and name (in its tags, else its file name) the wanted title and artist.
 * Anything doubtful is held for review with the reason; nothing here moves or changes the file.
 */

export interface AudioFacts {
  durationMs: number;
  title: string | null;
  artist: string | null;
  album: string | null;
  format: string;
  bitrate: number | null;
  sampleRate: number | null;
  bitDepth: number | null;
  lossless: boolean;
  /** ReplayGain the file's own tags carry (kept when it is filed), or null. */
  replayGain: ReplayGain | null;
}

export type QualityTier = 'lossless' | 'high' | 'medium' | 'low';

/** lossless for FLAC/ALAC/WAV..., then by bit rate: ≥256 kbps high, ≥160 medium, below low. */
export function qualityTier(f: { format: string | null; bitrate: number | null; lossless?: boolean; bitDepth?: number | null }): QualityTier {
  if (f.lossless || isLosslessFormat(f.format)) return 'lossless';
  const kbps = f.bitrate ?? 0;
  if (kbps >= 256) return 'high';
  if (kbps >= 160) return 'medium';
  return 'low';
}

const TIER_RANK: Record<QualityTier, number> = { lossless: 3, high: 2, medium: 1, low: 0 };
export const tierRank = (t: string | null) => (t && t in TIER_RANK ? TIER_RANK[t as QualityTier] : -1);

/** A file without readable audio; `misnamed` when its content is of another format than its name says. */
export class NotReadableAudio extends Error {
  constructor(readonly misnamed: ReturnType<typeof misnamedAudio>, tagError: string | null) {
    const why = misnamed?.said ?? tagError;
    super(`not a readable audio file${why ? `: ${why}` : ''}`);
  }
}

/** Reads a file's audio facts (on the tag thread); throws NotReadableAudio when it holds no readable audio. */
export async function readAudio(file: string): Promise<AudioFacts> {
  const tags: FileTags = await readTagsOffThread(file);
  if (tags.error || !(tags.durationMs > 0)) throw new NotReadableAudio(misnamedAudio(file), tags.error);
  const ext = path.extname(file).replace(/^\./, '').toLowerCase();
  const stem = path.basename(file, path.extname(file));
  const bitrate = tags.bitrate ? Math.round(tags.bitrate > 10_000 ? tags.bitrate / 1000 : tags.bitrate) : null;
  return {
    durationMs: tags.durationMs,
    // readFileTags falls back to the file name and folders when tags are missing.
    title: tags.title || stem,
    artist: tags.artist && tags.artist !== 'Unknown Artist' ? tags.artist : null,
    album: tags.album || null,
    format: ext || (tags.container ?? 'bin').toLowerCase(),
    bitrate,
    sampleRate: tags.sampleRate,
    bitDepth: tags.bitDepth,
    lossless: tags.lossless || isLosslessFormat(ext),
    replayGain: tags.replayGain ?? null,
  };
}

export interface Verdict {
  ok: boolean;
  /** Why the file is held (shown in the review screen). */
  reason: string | null;
  matchScore: number;
  /** The length reason and the tag reason apart: an acoustic fingerprint naming the requested recording outranks the tags. */
  durationReason: string | null;
  tagReason: string | null;
}

/** The match of the file's title and artist (tags, and the file name as a second witness). */
export function matchScore(job: Pick<DownloadJobRow, 'artistName' | 'trackName'>, facts: Pick<AudioFacts, 'title' | 'artist'>, fileName: string): number {
  const stem = path.basename(fileName, path.extname(fileName));
  const title = Math.max(coverage(job.trackName, facts.title), similarity(job.trackName, facts.title), coverage(job.trackName, stem));
  const artist = facts.artist
    ? Math.max(coverage(job.artistName, facts.artist), similarity(job.artistName, facts.artist), coverage(job.artistName, stem))
    : Math.max(coverage(job.artistName, stem), coverage(job.artistName, fileName));
  return 0.6 * title + 0.4 * artist;
}

export function verify(
  job: Pick<DownloadJobRow, 'artistName' | 'trackName' | 'durationMs'>,
  facts: AudioFacts,
  fileName: string,
  rules: { durationToleranceSeconds: number; minMatchScore: number },
): Verdict {
  let durationReason: string | null = null;
  let tagReason: string | null = null;
  if (job.durationMs && job.durationMs > 0) {
    const off = Math.abs(facts.durationMs - job.durationMs) / 1000;
    if (off > rules.durationToleranceSeconds) {
      durationReason = `duration ${fmt(facts.durationMs)} differs from the expected ${fmt(job.durationMs)} by ${Math.round(off)} s (tolerance ${rules.durationToleranceSeconds} s)`;
    }
  }
  const score = matchScore(job, facts, fileName);
  if (score < rules.minMatchScore) {
    tagReason = `tags "${facts.artist ?? '?'} – ${facts.title ?? '?'}" match "${job.artistName} – ${job.trackName}" at ${score.toFixed(2)}, below ${rules.minMatchScore}`;
  }
  const reasons = [durationReason, tagReason].filter((r): r is string => r !== null);
  return { ok: reasons.length === 0, reason: reasons.length ? reasons.join('; ') : null, matchScore: score, durationReason, tagReason };
}

/** m:ss */
export function fmt(ms: number): string {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
