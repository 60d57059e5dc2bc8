import fs from 'node:fs';
import path from 'node:path';
import { makeMp3Template, writeTaggedMp3 } from '../../fixtures/audio.js';
import { parseNzb, type NzbTrack } from './nzb.js';

/**
 * The download engine both Usenet client fakes share: an added NZB is fetched (really, over HTTP),
 * sits in the queue progressing with time, is post-processed (repair, unpack, move) for a while,
 * then lands in history; a completed job's folder under `completedDir` holds a real, tagged MP3.
 */

/**
 * Why a download failed, as the real clients tell apart: articles missing on the news server
 * (health), par repair, unpacking, removed by hand or the duplicate check, or the NZB URL that
 * could not be fetched.
 */
export type FakeFailure = 'health' | 'par' | 'unpack' | 'deleted' | 'fetch';

const failMessages: Record<FakeFailure, string> = {
  health: 'Download failed - Not on your server(s)',
  par: 'Repair failed, not enough repair blocks (12 short)',
  unpack: 'Unpacking failed, archive requires a password',
  deleted: 'Deleted by the user',
  fetch: 'URL Fetching failed',
};
export interface FakeDownload {
  id: number;
  name: string;
  category: string;
  priority: number;
  addedAt: number;
  sizeBytes: number;
  track: NzbTrack | null;
  /** How it will end failed, decided when it was added (failNextDownloads); null to succeed. */
  failure: FakeFailure | null;
  /** Set when it left the queue. */
  finished: null | { at: number; ok: boolean; failure: FakeFailure | null; failMessage: string; folder: string | null };
}

/** Where a download is: waiting, fetching articles, post-processing (repair/unpack/move), or in history. */
export type FakeStage = 'queued' | 'downloading' | 'post-processing' | 'finished';

export class FakeDownloads {
  /** How long fetching the articles takes. */
  durationMs = 300;
  /** How long post-processing (repair, unpack, move) takes after that, before the job reaches history. */
  postProcessMs = 0;
  /**
   * When set, a finished download is reported in this folder instead of the one its file was written
   * to: a client (or something posing as one) that points the server at some other folder.
   */
  reportFolder: string | null = null;
  /** How the next downloads end failed, one entry per download. */
  private failures: FakeFailure[] = [];
  private nextId = 1;
  readonly jobs: FakeDownload[] = [];
  /** Made once when the fake starts, so answering a poll never waits for ffmpeg. */
  private readonly template: Buffer;

  constructor(readonly completedDir: string, private readonly now: () => number = Date.now) {
    fs.mkdirSync(completedDir, { recursive: true });
    this.template = makeMp3Template(path.join(completedDir, '..', `.fake-template-${process.pid}`), 2);
    fs.rmSync(path.join(completedDir, '..', `.fake-template-${process.pid}`), { recursive: true, force: true });
  }

  /** The next `count` downloads added end failed, for `why` (default: par repair failed). */
  failNextDownloads(count: number, why: FakeFailure = 'par'): void {
    for (let i = 0; i < count; i++) this.failures.push(why);
  }

  /** Fetches the NZB at `url`; a fetch that fails leaves a failed history entry, as the real clients do. */
  async add(url: string, name: string, category: string, priority: number): Promise<FakeDownload> {
    const job: FakeDownload = { id: this.nextId++, name: name.replace(/\.nzb$/i, ''), category, priority, addedAt: this.now(), sizeBytes: 0, track: null, failure: this.failures.shift() ?? null, finished: null };
    this.jobs.push(job);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      const text = await res.text();
      job.track = res.ok ? parseNzb(text) : null;
      if (!job.track) job.finished = { at: this.now(), ok: false, failure: 'fetch', failMessage: res.ok ? 'Invalid NZB file' : `URL Fetching failed; HTTP ${res.status}`, folder: null };
    } catch {
      job.finished = { at: this.now(), ok: false, failure: 'fetch', failMessage: 'URL Fetching failed; connection refused', folder: null };
    }
    job.sizeBytes = 4_000_000;
    return job;
  }

  /** An NZB uploaded as content (SABnzbd `addfile`, NZBGet `append` with content). */
  addContent(nzb: string, name: string, category: string, priority: number): FakeDownload {
    const job: FakeDownload = { id: this.nextId++, name: name.replace(/\.nzb$/i, ''), category, priority, addedAt: this.now(), sizeBytes: 4_000_000, track: parseNzb(nzb), failure: this.failures.shift() ?? null, finished: null };
    if (!job.track) job.finished = { at: this.now(), ok: false, failure: 'fetch', failMessage: 'Invalid NZB file', folder: null };
    this.jobs.push(job);
    return job;
  }

  /** Moves every job whose time has come to history (writing its file); call before answering. */
  settle(): void {
    for (const job of this.jobs) {
      if (this.stage(job) !== 'post-processing' || this.now() < job.addedAt + this.durationMs + this.postProcessMs) continue;
      if (job.failure) {
        job.finished = { at: this.now(), ok: false, failure: job.failure, failMessage: failMessages[job.failure], folder: null };
        continue;
      }
      const folder = path.join(this.completedDir, ...(job.category ? [job.category] : []), job.name.replace(/[/\\]/g, '_'));
      const t = job.track!;
      const file = path.join(folder, `${String(t.track ?? 1).padStart(2, '0')} - ${t.title.replace(/[/\\]/g, '_')}.mp3`);
      writeTaggedMp3(file, this.template, { artist: t.artist, albumArtist: t.artist, album: t.album, title: t.title, track: t.track ?? 1 });
      job.sizeBytes = fs.statSync(file).size;
      job.finished = { at: this.now(), ok: true, failure: null, failMessage: '', folder: this.reportFolder ?? folder };
    }
  }

  /** Share of the articles fetched, 0..1. */
  progress(job: FakeDownload): number {
    if (job.finished) return 1;
    return this.durationMs <= 0 ? 1 : Math.min(1, (this.now() - job.addedAt) / this.durationMs);
  }

  /** Share of post-processing done, 0..1 (0 before the articles are all fetched). */
  postProgress(job: FakeDownload): number {
    if (job.finished) return 1;
    const since = this.now() - job.addedAt - this.durationMs;
    if (since < 0) return 0;
    return this.postProcessMs <= 0 ? 1 : Math.min(1, since / this.postProcessMs);
  }

  stage(job: FakeDownload): FakeStage {
    if (job.finished) return 'finished';
    const p = this.progress(job);
    if (p >= 1) return 'post-processing';
    return p > 0 ? 'downloading' : 'queued';
  }

  queued(): FakeDownload[] {
    return this.jobs.filter((j) => !j.finished);
  }

  history(): FakeDownload[] {
    return this.jobs.filter((j) => j.finished);
  }

  remove(id: number, deleteFiles: boolean): boolean {
    const i = this.jobs.findIndex((j) => j.id === id);
    if (i === -1) return false;
    const [job] = this.jobs.splice(i, 1);
    if (deleteFiles && job!.finished?.folder) fs.rmSync(job!.finished.folder, { recursive: true, force: true });
    return true;
  }
}
