import type { DownloadJobPatch, DownloadJobRow } from '../../db/downloads.js';
import { findExpectedLength, type Deps as DownloadsExpectedLengthDeps } from './expectedLength.js';
import { coverage, similarity } from './scoring.js';
import type { PipelineState } from './state.js';
import { downloadSource } from './sources/index.js';
import { fmt, type AudioFacts, type Verdict } from './verify.js';
import type { AcoustIdService } from '../metadata/acoustid.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = { acoustId: AcoustIdService } & DownloadsExpectedLengthDeps;

/**
 * Issue 26: why a download is trusted. Before the search, a job without an expected length gets one
 * from MusicBrainz (expectedLength.ts). When the file has arrived, besides the length and tag checks
 * of verify.ts, its real length is compared with what its source announced (slskd's `length`,
 * yt-dlp's `duration`): a peer that announced 3:23 and delivered 0:20 sent a broken file.
 */

/** Fills in a job's expected length before its search; answers the job as it is now. */
export async function expectLength(ctx: Deps, job: DownloadJobRow, patch: (p: DownloadJobPatch) => DownloadJobRow): Promise<DownloadJobRow> {
  if (job.durationSource !== null) return job;
  if (job.durationMs) return patch({ durationSource: 'request' });
  const found = await findExpectedLength(ctx, job);
  if (!found) return job;
  return patch({ durationMs: found.durationMs, durationSource: found.source });
}

export interface ArrivalVerdict {
  ok: boolean;
  reason: string | null;
  patch: DownloadJobPatch;
}

/** The arrived file's checks together: verify.ts's verdict, the announced length, the acoustic fingerprint. */
export async function judgeArrival(
  ctx: Deps,
  job: DownloadJobRow,
  st: PipelineState,
  facts: AudioFacts,
  verdict: Verdict,
  rules: { durationToleranceSeconds: number },
  signal?: AbortSignal,
): Promise<ArrivalVerdict> {
  const patch: DownloadJobPatch = { fileDurationMs: Math.round(facts.durationMs) };
  const reasons: string[] = [];
  if (verdict.durationReason) reasons.push(verdict.durationReason);
  const announced = st.chosen?.durationMs ?? null;
  if (announced && announced > 0) {
    const off = Math.abs(facts.durationMs - announced) / 1000;
    if (off > rules.durationToleranceSeconds) {
      reasons.push(`the file lasts ${fmt(facts.durationMs)}, but ${sourceName(st.chosen!.source)} announced ${fmt(announced)} (a broken or truncated file?)`);
    }
  }
  const sound = st.held ? await soundCheck(ctx, job, st.held, facts.durationMs, signal) : null;
  if (sound) Object.assign(patch, { identity: sound.status, identityNote: sound.note, identityRecordingMbid: sound.recordingMbid });
  if (sound?.status === 'different') reasons.push(sound.note);
  // A fingerprint naming the requested recording outranks the tags (on peer-to-peer networks they are what lies).
  if (verdict.tagReason && sound?.status !== 'verified') reasons.push(verdict.tagReason);
  return { ok: reasons.length === 0, reason: reasons.length ? reasons.join('; ') : null, patch };
}

export interface SoundVerdict {
  status: 'verified' | 'different' | 'unknown' | 'skipped';
  note: string;
  recordingMbid: string | null;
}

/** AcoustID scores below this are not taken as saying what a file is. */
const MIN_ACOUSTID_SCORE = 0.5;

/**
 * What the file's fingerprint says about it: `verified` when AcoustID names the requested recording
 * (by id, or, for a request without one, a recording of the requested title and artist),
 * `different` when it names only other recordings, `unknown` when it names none, `skipped` when the
 * check could not run (no key, no ffmpeg, AcoustID unreachable): the job says why.
 */
export async function soundCheck(
  ctx: Deps,
  job: Pick<DownloadJobRow, 'artistName' | 'trackName' | 'recordingMbid'>,
  file: string,
  durationMs: number,
  signal?: AbortSignal,
): Promise<SoundVerdict> {
  const found = await ctx.acoustId.identify(file, durationMs, signal);
  if (found.status === 'skipped') return { status: 'skipped', note: `not checked by sound: ${found.note}`, recordingMbid: null };
  const recordings = found.matches.filter((m) => m.score >= MIN_ACOUSTID_SCORE).flatMap((m) => m.recordings.map((r) => ({ ...r, score: m.score })));
  if (recordings.length === 0) return { status: 'unknown', note: 'AcoustID does not know this recording', recordingMbid: null };
  const byId = job.recordingMbid ? recordings.find((r) => r.id === job.recordingMbid) : undefined;
  if (byId) return { status: 'verified', note: `AcoustID names the requested recording (score ${byId.score.toFixed(2)})`, recordingMbid: byId.id };
  const sameSong = recordings.find(
    (r) => r.title && similarity(job.trackName, r.title) >= 0.8 && (!r.artist || Math.max(similarity(job.artistName, r.artist), coverage(job.artistName, r.artist)) >= 0.7),
  );
  if (sameSong && !job.recordingMbid)
    return { status: 'verified', note: `AcoustID names “${sameSong.artist ?? '?'} – ${sameSong.title}” (score ${sameSong.score.toFixed(2)})`, recordingMbid: sameSong.id };
  if (sameSong)
    // Another recording of the same song (a remaster, a release's own id): not what was asked, but not wrong either.
    return { status: 'unknown', note: `AcoustID names another recording of “${sameSong.title}” (${sameSong.id}), not the requested one`, recordingMbid: sameSong.id };
  const top = recordings.find((r) => r.title) ?? recordings[0]!;
  return {
    status: 'different',
    note: `sounds like ${top.artist ?? 'an unknown artist'} – ${top.title ?? 'an untitled recording'} (AcoustID, score ${top.score.toFixed(2)}), not the requested recording`,
    recordingMbid: top.id,
  };
}

function sourceName(id: string): string {
  return downloadSource(id)?.noun ?? id;
}
