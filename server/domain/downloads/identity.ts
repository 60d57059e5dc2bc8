import type { AppContext } from '../../context.js';
import type { DownloadJobPatch, DownloadJobRow } from '../../db/downloads.js';
import { findExpectedLength } from './expectedLength.js';
import type { PipelineState } from './state.js';
import { fmt, type AudioFacts, type Verdict } from './verify.js';

/**
 * Issue 26: why a download is trusted. Before the search, a job without an expected length gets one
 * from MusicBrainz (expectedLength.ts). When the file has arrived, besides the length and tag checks
 * of verify.ts, its real length is compared with what its source announced (slskd's `length`,
 * yt-dlp's `duration`): a peer that announced 3:23 and delivered 0:20 sent a broken file.
 */

/** Fills in a job's expected length before its search; answers the job as it is now. */
export async function expectLength(ctx: AppContext, job: DownloadJobRow, patch: (p: DownloadJobPatch) => DownloadJobRow): Promise<DownloadJobRow> {
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

/** The arrived file's checks together: verify.ts's verdict, the announced length. */
export async function judgeArrival(
  ctx: AppContext,
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
  if (verdict.tagReason) reasons.push(verdict.tagReason);
  void ctx;
  void signal;
  return { ok: reasons.length === 0, reason: reasons.length ? reasons.join('; ') : null, patch };
}

function sourceName(id: string): string {
  return id === 'slskd' ? 'slskd' : id === 'ytdlp' ? 'yt-dlp' : id === 'usenet' ? 'the Usenet release' : id;
}
