import fs from 'node:fs';
import path from 'node:path';
import { downloads, type DownloadJobPatch, type DownloadJobRow } from '../../db/downloads.js';
import type { Job } from '../../jobs/queue.js';
import { sleep } from '../../sleep.js';
import { locateFfmpeg } from '../subsonic/transcoding.js';
import { reuseOwnedTrack, type Deps as DownloadsReuseDeps } from './reuse.js';
import { fileJob, type Deps as DownloadsFilePhaseDeps } from './filePhase.js';
import { JobLeft, readState, type PipelineState } from './state.js';
import { FilingError, clearStaging, ensureFolder, holdInStaging, renameHeld, stagingTargetFor } from './filing.js';
import { downloadsRoot, type Deps as DownloadsLayoutDeps } from './layout.js';
import { expectLength, judgeArrival, type Deps as DownloadsIdentityDeps } from './identity.js';
import { rankCandidates, queryVariants } from './scoring.js';
import { TRACK_QUEUE, type DownloadService } from './service.js';
import { NotReadableAudio, readAudio, qualityTier, verify, type AudioFacts } from './verify.js';
import type { Candidate, DownloadSource, SourceContext, TrackQuery } from './types.js';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'config' | 'db' | 'log'>
  & {
    settings: SettingsStore;
    downloads: DownloadService;
  }
  & DownloadsFilePhaseDeps
  & DownloadsIdentityDeps
  & DownloadsLayoutDeps
  & DownloadsReuseDeps;

/**
 * The track pipeline: the handler of TRACK_QUEUE, one queue job per download job, through the
 * phases search (query variants, every usable source by priority) → download → verify → file.
 * Each step is recorded in the row (`phase`, `source_state`) before its effects, so a queue job
 * reclaimed after a crash resumes where the last one stopped: an enqueued transfer is followed,
 * not started again, and a filed file is not filed twice.
 */

const POLL_MS = 500;
const PROGRESS_EVERY_MS = 1000;
const MAX_POLL_ERRORS = 5;
/** A transfer whose progress has not moved for this long is given up (the next candidate is tried). */
const STALL_MS = 20 * 60_000;

/** Limits running pipelines to `downloads.worker.concurrency`, read at each start. */
class Slots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: () => number) {}
  async acquire(signal: AbortSignal): Promise<void> {
    while (this.active >= this.limit()) {
      await new Promise<void>((resolve, reject) => {
        const wake = () => (signal.removeEventListener('abort', abort), resolve());
        const abort = () => {
          const i = this.waiting.indexOf(wake);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(signal.reason as Error);
        };
        signal.addEventListener('abort', abort, { once: true });
        this.waiting.push(wake);
      });
    }
    this.active++;
  }
  release(): void {
    this.active--;
    this.waiting.shift()?.();
  }
  wakeAll(): void {
    for (const w of this.waiting.splice(0)) w();
  }
}

export class TrackPipeline {
  readonly slots: Slots;
  private readonly ffmpeg: string | null;

  constructor(private readonly ctx: Deps) {
    this.slots = new Slots(() => ctx.settings.get().downloads.worker.concurrency);
    this.ffmpeg = locateFfmpeg(ctx.config.ffmpegPath);
  }

  get root(): string {
    return downloadsRoot(this.ctx);
  }

  /** The queue handler. */
  async run(job: Job<{ jobId: number }>): Promise<void> {
    const svc = this.ctx.downloads;
    const row = svc.get(job.payload.jobId);
    if (!row || (row.status !== 'pending' && row.status !== 'downloading')) return;
    // Stopped: the job stays pending; the repair queues it again once the worker runs.
    if (!this.ctx.settings.get().downloads.worker.running) return;
    await this.slots.acquire(job.signal);
    try {
      await this.drive(row.id, job.signal);
    } catch (err) {
      if (err instanceof JobLeft) {
        if (this.ctx.downloads.get(row.id)?.status === 'cancelled') clearStaging(this.root, row.id);
        return;
      }
      throw err;
    } finally {
      this.slots.release();
    }
  }

  private patch(id: number, patch: DownloadJobPatch): DownloadJobRow {
    const after = this.ctx.downloads.transition(id, patch, ['downloading']);
    if (!after) throw new JobLeft('job left downloading');
    return after;
  }

  private save(id: number, st: PipelineState, extra: DownloadJobPatch = {}): DownloadJobRow {
    return this.patch(id, { ...extra, sourceState: JSON.stringify(st) });
  }

  private fail(id: number, message: string): void {
    this.ctx.downloads.transition(id, { status: 'failed', error: message, progress: 0 }, ['downloading', 'pending']);
    clearStaging(this.root, id);
  }

  private async drive(id: number, signal: AbortSignal): Promise<void> {
    const svc = this.ctx.downloads;
    let job = svc.get(id)!;
    const worker = this.ctx.settings.get().downloads.worker;
    if (job.status === 'pending') {
      if (job.phase === null && worker.existingFileMode === 'reuse' && !job.upgrade && reuseOwnedTrack(this.ctx, job)) return;
      const started = svc.transition(id, { status: 'downloading', phase: job.phase ?? 'search' }, ['pending']);
      if (!started) return;
      job = started;
    }
    for (let step = 0; step < 200; step++) {
      signal.throwIfAborted();
      job = svc.get(id)!;
      if (job.status !== 'downloading') return;
      const st = readState(job);
      switch (job.phase) {
        case null:
        case 'search':
          if (!(await this.search(job, st, signal))) return;
          break;
        case 'download':
          await this.download(job, st, signal);
          break;
        case 'verify':
          if (!(await this.verify(job, st, signal))) return;
          break;
        case 'file':
          await fileJob(this.ctx, job, st, { signal, ffmpeg: this.ffmpeg, fromStatus: 'downloading' });
          return;
      }
    }
    this.fail(id, 'The download did not settle after many attempts');
  }

  private query(job: DownloadJobRow): TrackQuery {
    return {
      artistName: job.artistName,
      trackName: job.trackName,
      albumName: job.albumName,
      durationMs: job.durationMs,
      trackNumber: job.trackNumber,
      year: job.year,
      recordingMbid: job.recordingMbid,
      queries: queryVariants(job),
    };
  }

  /** Picks the next candidate (of the current source, else by searching the next source); false when the job ended. */
  private async search(job: DownloadJobRow, st: PipelineState, signal: AbortSignal): Promise<boolean> {
    job = await expectLength(this.ctx, job, (p) => this.patch(job.id, p));
    const denied = downloads.denied(this.ctx.db, job.id);
    const excluded = (c: Candidate) => denied.has(`${c.source}\u0000${c.ref}`) || st.failedRefs.includes(`${c.source}\u0000${c.ref}`);
    const sources = this.ctx.downloads.sources();
    if (st.source && st.candidates) {
      const next = sources.some((s) => s.id === st.source) ? st.candidates.find((c) => !excluded(c)) : undefined;
      if (next) {
        this.save(job.id, { ...st, chosen: next, handle: undefined, held: undefined, target: undefined }, { phase: 'download', progress: 0 });
        return true;
      }
      if (!st.tried.includes(st.source)) st.tried.push(st.source);
      st.errors.push(`${st.source}: no other acceptable candidate`);
      st.candidates = undefined;
      st.source = undefined;
    }
    const profile = this.ctx.settings.get().downloads.worker;
    const want = this.query(job);
    for (const source of sources.filter((s) => !st.tried.includes(s.id))) {
      this.save(job.id, st, { downloadSource: source.id, phase: 'search', progress: 0 });
      try {
        for (const q of want.queries) {
          const found = await source.search({ ...want, queries: [q] }, signal);
          const ranked = rankCandidates(found, want, profile, { denied, tried: new Set(st.failedRefs) });
          if (ranked.length > 0) {
            const candidates = ranked.slice(0, 10).map((r) => r.candidate);
            this.save(job.id, { ...st, source: source.id, candidates, chosen: candidates[0], handle: undefined, held: undefined, target: undefined }, { phase: 'download' });
            return true;
          }
        }
        st.errors.push(`${source.label}: no acceptable candidate`);
      } catch (err) {
        if (signal.aborted || err instanceof JobLeft) throw err;
        st.errors.push(`${source.label}: ${err instanceof Error ? err.message : String(err)}`);
        this.ctx.log.warn('download source search failed', { jobId: job.id, source: source.id, error: err instanceof Error ? err.message : String(err) });
      }
      st.tried.push(source.id);
    }
    this.save(job.id, st);
    this.fail(
      job.id,
      sources.length === 0
        ? 'No download source is configured (slskd, Usenet or yt-dlp)'
        : `No source had an acceptable copy of "${job.artistName} – ${job.trackName}": ${st.errors.join('; ')}`,
    );
    return false;
  }

  private sourceContext(job: DownloadJobRow, signal: AbortSignal): SourceContext {
    const stagingDir = path.join(this.root, '.staging', String(job.id));
    return { stagingDir, jobId: job.id, signal };
  }

  /** Starts (or follows) the chosen candidate's transfer until its file is held in staging. */
  private async download(job: DownloadJobRow, st: PipelineState, signal: AbortSignal): Promise<void> {
    const source = this.ctx.downloads.sources().find((s) => s.id === st.source);
    if (!source || !st.chosen) {
      this.save(job.id, { ...st, chosen: undefined, handle: undefined }, { phase: 'search' });
      return;
    }
    // A file moved into staging before a restart is verified, not downloaded again.
    if (st.held && fs.existsSync(st.held)) {
      this.save(job.id, st, { phase: 'verify', stagingPath: st.held });
      return;
    }
    const sctx = this.sourceContext(job, signal);
    if (!st.handle) {
      try {
        ensureFolder(sctx.stagingDir);
      } catch (err) {
        if (err instanceof FilingError) return this.fail(job.id, err.message);
        throw err;
      }
      const handle = await this.attempt(source, () => source.start(st.chosen!, sctx));
      if ('failed' in handle) return this.candidateFailed(job, st, handle.failed);
      st.handle = { ...handle, data: { ...handle.data, want: { trackName: job.trackName, trackNumber: job.trackNumber } } };
      this.save(job.id, st, { downloadSource: source.id });
    }
    let errors = 0;
    let lastEmit = 0;
    let lastPercent = job.progress;
    let seenPercent = -1;
    let movedAt = Date.now();
    for (;;) {
      signal.throwIfAborted();
      let state;
      try {
        state = await source.poll(st.handle!, sctx);
        errors = 0;
      } catch (err) {
        if (signal.aborted) throw err;
        if (++errors >= MAX_POLL_ERRORS) return this.candidateFailed(job, st, `${source.label}: ${err instanceof Error ? err.message : String(err)}`);
        await sleep(POLL_MS * errors, signal);
        continue;
      }
      if (state.state === 'failed') return this.candidateFailed(job, st, `${source.label}: ${state.message}`);
      if (state.state === 'done') {
        const target = stagingTargetFor(this.root, job.id, state.file);
        this.save(job.id, { ...st, held: target });
        try {
          await holdInStaging(state.file, target);
        } catch (err) {
          if (err instanceof FilingError) return this.fail(job.id, err.message);
          throw err;
        }
        this.save(job.id, { ...st, held: target }, { phase: 'verify', stagingPath: target, progress: 100 });
        return;
      }
      const now = Date.now();
      if (state.percent !== seenPercent) {
        seenPercent = state.percent;
        movedAt = now;
      } else if (now - movedAt > STALL_MS) {
        await source.cancel(st.handle!).catch(() => undefined);
        return this.candidateFailed(job, st, `${source.label}: no progress for ${STALL_MS / 60_000} minutes (${state.state})`);
      }
      if (Math.abs(state.percent - lastPercent) >= 1 && now - lastEmit >= PROGRESS_EVERY_MS) {
        this.patch(job.id, { progress: Math.round(state.percent * 10) / 10 });
        lastEmit = now;
        lastPercent = state.percent;
      } else if (this.ctx.downloads.get(job.id)?.status !== 'downloading') {
        throw new JobLeft('cancelled');
      }
      await sleep(POLL_MS, signal);
    }
  }

  private async attempt<T>(source: DownloadSource, f: () => Promise<T>): Promise<T | { failed: string }> {
    try {
      return await f();
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      return { failed: `${source.label}: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  /** The chosen candidate did not deliver: the next candidate, else the next source. */
  private candidateFailed(job: DownloadJobRow, st: PipelineState, message: string): void {
    this.ctx.log.info('download candidate failed', { jobId: job.id, message });
    if (st.chosen) st.failedRefs.push(`${st.chosen.source}\u0000${st.chosen.ref}`);
    st.errors.push(message);
    this.save(job.id, { ...st, chosen: undefined, handle: undefined, held: undefined }, { phase: 'search', progress: 0, stagingPath: null });
    clearStaging(this.root, job.id);
  }

  /**
   * The held file's audio facts, or why it holds no readable audio. A file named for another format
   * (a FLAC shared as `.mp3`) is renamed in staging to the extension its content calls for and read
   * again, so it is verified and filed as what it is.
   */
  private async readHeld(job: DownloadJobRow, st: PipelineState): Promise<AudioFacts | string> {
    const said = (err: unknown) => (err instanceof Error ? err.message : String(err));
    try {
      return await readAudio(st.held!);
    } catch (err) {
      const misnamed = err instanceof NotReadableAudio ? err.misnamed : null;
      if (!misnamed) return said(err);
      try {
        st.held = renameHeld(st.held!, misnamed.extension, (renamed) => this.save(job.id, { ...st, held: renamed }, { stagingPath: renamed }));
        this.ctx.log.info('download renamed for its content', { jobId: job.id, held: st.held, was: misnamed.said });
        return await readAudio(st.held);
      } catch (again) {
        if (again instanceof JobLeft) throw again;
        return said(again);
      }
    }
  }

  /** Reads the held file; doubtful → blocked for review (false), good → the file phase (true). */
  private async verify(job: DownloadJobRow, st: PipelineState, signal?: AbortSignal): Promise<boolean> {
    if (!st.held || !fs.existsSync(st.held)) {
      this.candidateFailed(job, st, 'the downloaded file disappeared before it was checked');
      return true;
    }
    const facts = await this.readHeld(job, st);
    if (typeof facts === 'string') {
      this.candidateFailed(job, st, `${st.source}: ${facts}`);
      return true;
    }
    const rules = this.ctx.settings.get().downloads.worker;
    const verdict = await judgeArrival(this.ctx, job, st, facts, verify(job, facts, st.chosen?.title ?? st.held, rules), rules, signal);
    const quality = { format: facts.format, bitrate: facts.bitrate, sampleRate: facts.sampleRate, bitDepth: facts.bitDepth, qualityTier: qualityTier(facts), ...verdict.patch };
    if (!verdict.ok) {
      const blocked = this.ctx.downloads.transition(
        job.id,
        { status: 'blocked', blockReason: verdict.reason, blockedAt: this.ctx.clock.now(), stagingPath: st.held, ...quality },
        ['downloading'],
      );
      if (!blocked) throw new JobLeft('cancelled');
      return false;
    }
    this.patch(job.id, { phase: 'file', ...quality });
    return true;
  }
}


export { TRACK_QUEUE };
