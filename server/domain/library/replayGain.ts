import os from 'node:os';
import { replayGainStore, type PendingFile } from '../../db/replayGain.js';
import { albumReplayGain, gainOf, loudnessArguments, parseLoudness } from '../../library/replayGain.js';
import { canWriteReplayGain, writeReplayGainTags } from '../../library/replayGainTags.js';
import { runTool } from '../../library/toolThread.js';
import { locateFfmpeg } from '../subsonic/transcoding.js';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';
import type { LibraryService } from './service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'config' | 'db' | 'jobs' | 'log' | 'onClose' | 'scheduler'>
  & {
    settings: SettingsStore;
    library: LibraryService;
    replayGain: ReplayGainAnalyser | undefined;
  };

/**
 * The ReplayGain task (issue 26 §3): files whose tags carry no ReplayGain are measured with ffmpeg's
 * EBU R128 filter (ReplayGain 2: gain = −18 LUFS − integrated loudness, true peak), one file per tool
 * run on the tool thread at background priority (priority.ts), and albums get their album values
 * once all their tracks have theirs. Every result is committed as it comes, so a run cut short (a
 * restart, kill -9) goes on with the files still unmeasured. The user's files are never written.
 */

export const REPLAYGAIN_QUEUE = 'replaygain';
export const REPLAYGAIN_TASK = 'replaygain-analysis';
const EVERY_MS = 6 * 3600_000;
/** Files read from the store at a time. */
const BATCH = 16;

/** ffmpeg runs at once: one per core, at most 4 (they run below the main thread's priority). */
export function analysisConcurrency(): number {
  return Math.max(1, Math.min(4, os.availableParallelism?.() ?? os.cpus().length));
}

export interface AnalysisOutcome {
  measured: number;
  failed: number;
  albums: number;
  /** Files whose tags got their values ("write ReplayGain tags" on). */
  written: number;
}

export class ReplayGainAnalyser {
  private again = false;
  private warnedNoFfmpeg = false;

  constructor(
    private readonly ctx: Deps,
    private readonly ffmpeg: string | null,
    private readonly concurrency = analysisConcurrency(),
  ) {}

  /** Asks for a run (after a scan); a run under way goes round once more instead. */
  request(): void {
    this.again = true;
    try {
      this.ctx.scheduler.runNow(REPLAYGAIN_TASK);
    } catch (err) {
      this.ctx.log.warn('ReplayGain task could not be queued', { error: err instanceof Error ? err.message : String(err) });
    }
  }

  /** Measures every file still without values, then fills album values; stops early on `signal`. */
  async run(signal?: AbortSignal): Promise<AnalysisOutcome> {
    const outcome: AnalysisOutcome = { measured: 0, failed: 0, albums: 0, written: 0 };
    do {
      this.again = false;
      if (this.ffmpeg) await this.measureAll(outcome, signal);
      else if (!this.warnedNoFfmpeg && replayGainStore.pendingCount(this.ctx.db) > 0) {
        this.warnedNoFfmpeg = true;
        this.ctx.log.warn('ReplayGain analysis needs ffmpeg (FFMPEG_PATH); files without ReplayGain tags stay unlevelled');
      }
      if (signal?.aborted) break;
      // Albums whose tracks all have gains (from tags or measured) but no album values yet.
      for (const albumId of replayGainStore.albumsPending(this.ctx.db, 1_000_000)) {
        if (replayGainStore.refreshAlbum(this.ctx.db, albumId, albumReplayGain) === 'stored') outcome.albums++;
      }
      if (this.ctx.settings.get().library.writeReplayGainTags && !signal?.aborted) outcome.written += await this.writeTags(signal);
    } while (this.again && !signal?.aborted);
    if (outcome.measured + outcome.failed + outcome.written > 0) this.ctx.log.info('ReplayGain analysis finished', { ...outcome });
    return outcome;
  }

  private async measureAll(outcome: AnalysisOutcome, signal?: AbortSignal): Promise<void> {
    let after = 0;
    for (;;) {
      if (signal?.aborted) return;
      const batch = replayGainStore.pending(this.ctx.db, BATCH, after);
      if (batch.length === 0) return;
      after = batch[batch.length - 1]!.id;
      const queue = [...batch];
      const worker = async () => {
        for (let file = queue.shift(); file && !signal?.aborted; file = queue.shift()) {
          const ok = await this.measure(file, signal);
          if (ok === true) outcome.measured++;
          else if (ok === false) outcome.failed++;
        }
      };
      await Promise.all(Array.from({ length: Math.min(this.concurrency, batch.length) }, worker));
      const albums = new Set(batch.map((f) => f.albumId).filter((id): id is number => id !== null));
      for (const albumId of albums) {
        if (replayGainStore.refreshAlbum(this.ctx.db, albumId, albumReplayGain) === 'stored') outcome.albums++;
      }
    }
  }

  /** Files whose tags could not be written (kept for this process's life, so none is tried every run). */
  private readonly notWritable = new Set<number>();

  /**
   * Writes the settled measured values into the files' tags, then asks for a scan of those files
   * (which reads the values back from the tags). Returns how many files were written.
   */
  private async writeTags(signal?: AbortSignal): Promise<number> {
    const library = this.ctx.library;
    const written: string[] = [];
    let after = 0;
    for (;;) {
      const batch = replayGainStore.toWrite(this.ctx.db, BATCH, after);
      if (batch.length === 0 || signal?.aborted) break;
      after = batch[batch.length - 1]!.id;
      for (const file of batch) {
        if (signal?.aborted || this.notWritable.has(file.id)) continue;
        const real = library.servablePath(file.path);
        if (!real || !canWriteReplayGain(real)) {
          this.notWritable.add(file.id);
          continue;
        }
        try {
          await writeReplayGainTags(real, file, this.ffmpeg, signal);
          replayGainStore.markWritten(this.ctx.db, file);
          written.push(file.path);
        } catch (err) {
          if (signal?.aborted) break;
          this.notWritable.add(file.id);
          this.ctx.log.warn('ReplayGain tags could not be written', { path: file.path, error: err instanceof Error ? err.message : String(err) });
        }
      }
    }
    if (written.length > 0) {
      try {
        library.scans.requestScan('quick', 'ReplayGain tags written', written, { paced: true });
      } catch (err) {
        this.ctx.log.warn('library scan request failed', { error: err instanceof Error ? err.message : String(err) });
      }
    }
    return written.length;
  }

  /** true: measured; false: recorded as not measurable; null: nothing recorded (aborted, or the file changed). */
  private async measure(file: PendingFile, signal?: AbortSignal): Promise<boolean | null> {
    const real = this.ctx.library.servablePath(file.path);
    if (!real) return replayGainStore.recordMeasured(this.ctx.db, file, { error: 'file not readable' }) ? false : null;
    const result = await measureLoudness(this.ffmpeg!, real, signal);
    if (signal?.aborted) return null;
    if ('startError' in result) throw new Error(`ffmpeg could not start: ${result.startError}`);
    const stored = replayGainStore.recordMeasured(this.ctx.db, file, 'error' in result ? result : { trackGain: result.trackGain, trackPeak: result.trackPeak });
    return stored ? !('error' in result) : null;
  }
}

/**
 * One file's ReplayGain 2 track values measured by ffmpeg on the tool thread; `error` when the file
 * has no measurable audio (silence, undecodable), `startError` when ffmpeg itself could not run.
 */
export async function measureLoudness(
  ffmpeg: string,
  file: string,
  signal?: AbortSignal,
): Promise<{ trackGain: number; trackPeak: number; loudness: number } | { error: string } | { startError: string }> {
  const { code, stderr, startError } = await runTool(ffmpeg, loudnessArguments(file), signal);
  if (startError) return { startError };
  const loudness = parseLoudness(stderr);
  if (loudness) return { trackGain: gainOf(loudness.integrated), trackPeak: loudness.peak, loudness: loudness.integrated };
  if (code !== 0) {
    const last = stderr.trim().split('\n').pop() ?? '';
    return { error: `not decodable: ${last.slice(0, 300) || `ffmpeg exited with code ${code}`}` };
  }
  return { error: 'no measurable loudness (silence)' };
}

/** The analyser of a running server (built by server/wiring.ts), none when TONEARM_REPLAYGAIN_ANALYSIS is off. */
export function createReplayGainAnalyser(ctx: Deps): ReplayGainAnalyser | undefined {
  return ctx.config.replayGainAnalysis ? new ReplayGainAnalyser(ctx, locateFfmpeg(ctx.config.ffmpegPath)) : undefined;
}

/** Registers the task (every 6 h, after each scan, and at start while files are left from before), unless TONEARM_REPLAYGAIN_ANALYSIS is off. */
export function startReplayGain(ctx: Deps): void {
  const analyser = ctx.replayGain;
  if (!analyser) return;
  ctx.jobs.register(REPLAYGAIN_QUEUE, {
    concurrency: 1,
    maxAttempts: 3,
    // Renewed while it runs; a run of a process that died is picked up again within a minute.
    visibilityTimeoutMs: 60_000,
    backoff: { baseMs: 60_000, maxMs: 3600_000 },
    handler: async (job) => void (await analyser.run(job.signal)),
  });
  ctx.scheduler.define({
    name: REPLAYGAIN_TASK,
    every: EVERY_MS,
    queue: REPLAYGAIN_QUEUE,
    runOnFirstStart: true,
    detail: () => {
      const left = replayGainStore.pendingCount(ctx.db);
      return left > 0 ? `${left} file${left === 1 ? '' : 's'} left to measure` : 'every file has ReplayGain values';
    },
  });
  const library = ctx.library;
  const unsubscribe = library.onScanCompleted(() => analyser.request());
  ctx.onClose(() => void unsubscribe());
  // Work left by a run cut short (a restart, kill -9) goes on at once.
  if (replayGainStore.pendingCount(ctx.db) > 0 || replayGainStore.albumsPending(ctx.db, 1).length > 0) analyser.request();
}
