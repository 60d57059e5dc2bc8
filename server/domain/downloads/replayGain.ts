import type { ReplayGain } from '../../library/replayGain.js';
import { measureLoudness } from '../library/replayGain.js';
import type { AudioFacts } from './verify.js';
import type { Kernel } from '../../kernel.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'config' | 'log'>;

/**
 * A download's ReplayGain, measured before it is filed so the values go into its tags (issue 26 §3):
 * track gain and peak (the album's values follow in the library once its tracks are there). Null
 * when the file's own tags carry ReplayGain already (kept as they are), without ffmpeg, with the
 * analysis turned off, or when the audio cannot be measured; filing never fails for it.
 */
export async function replayGainForDownload(
  ctx: Deps,
  held: string,
  facts: Pick<AudioFacts, 'replayGain'>,
  ffmpeg: string | null,
  signal?: AbortSignal,
): Promise<ReplayGain | null> {
  if (facts.replayGain?.trackGain != null || !ffmpeg || !ctx.config.replayGainAnalysis) return null;
  try {
    const r = await measureLoudness(ffmpeg, held, signal);
    if ('trackGain' in r) return { trackGain: r.trackGain, trackPeak: r.trackPeak, albumGain: null, albumPeak: null };
    ctx.log.info('download not measured for ReplayGain', { file: held, reason: 'error' in r ? r.error : r.startError });
  } catch (err) {
    if (signal?.aborted) throw err;
    ctx.log.warn('ReplayGain measurement failed', { file: held, error: err instanceof Error ? err.message : String(err) });
  }
  return null;
}
