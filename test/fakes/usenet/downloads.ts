import fs from 'node:fs';
import path from 'node:path';
import { makeMp3Template, writeTaggedMp3 } from '../../fixtures/audio.js';
import { parseNzb, type NzbTrack } from './nzb.js';

/**
 * The download engine both Usenet client fakes share: an added NZB is fetched (really, over HTTP),
 * sits in the queue progressing with time, then lands in history; a completed job's folder under
 * `completedDir` holds a real, tagged MP3.
 */
export interface FakeDownload {
  id: number;
  name: string;
  category: string;
  priority: number;
  addedAt: number;
  sizeBytes: number;
  track: NzbTrack | null;
  /** Set when it left the queue. */
  finished: null | { at: number; ok: boolean; failMessage: string; folder: string | null };
}

export class FakeDownloads {
  /** How long a download takes from add to history. */
  durationMs = 300;
  /** The next `count` downloads end failed (e.g. a missing article). */
  private failuresLeft = 0;
  private nextId = 1;
  readonly jobs: FakeDownload[] = [];
  /** Made once when the fake starts, so answering a poll never waits for ffmpeg. */
  private readonly template: Buffer;

  constructor(readonly completedDir: string, private readonly now: () => number = Date.now) {
    fs.mkdirSync(completedDir, { recursive: true });
    this.template = makeMp3Template(path.join(completedDir, '..', `.fake-template-${process.pid}`), 2);
    fs.rmSync(path.join(completedDir, '..', `.fake-template-${process.pid}`), { recursive: true, force: true });
  }

  failNextDownloads(count: number): void {
    this.failuresLeft += count;
  }

  /** Fetches the NZB at `url`; a fetch that fails leaves a failed history entry, as the real clients do. */
  async add(url: string, name: string, category: string, priority: number): Promise<FakeDownload> {
    const job: FakeDownload = { id: this.nextId++, name: name.replace(/\.nzb$/i, ''), category, priority, addedAt: this.now(), sizeBytes: 0, track: null, finished: null };
    this.jobs.push(job);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      const text = await res.text();
      job.track = res.ok ? parseNzb(text) : null;
      if (!job.track) job.finished = { at: this.now(), ok: false, failMessage: res.ok ? 'Invalid NZB file' : `URL Fetching failed; HTTP ${res.status}`, folder: null };
    } catch {
      job.finished = { at: this.now(), ok: false, failMessage: 'URL Fetching failed; connection refused', folder: null };
    }
    job.sizeBytes = 4_000_000;
    return job;
  }

  /** An NZB uploaded as content (SABnzbd `addfile`, NZBGet `append` with content). */
  addContent(nzb: string, name: string, category: string, priority: number): FakeDownload {
    const job: FakeDownload = { id: this.nextId++, name: name.replace(/\.nzb$/i, ''), category, priority, addedAt: this.now(), sizeBytes: 4_000_000, track: parseNzb(nzb), finished: null };
    if (!job.track) job.finished = { at: this.now(), ok: false, failMessage: 'Invalid NZB file', folder: null };
    this.jobs.push(job);
    return job;
  }

  /** Moves every job whose time has come to history (writing its file); call before answering. */
  settle(): void {
    for (const job of this.jobs) {
      if (job.finished || this.progress(job) < 1) continue;
      if (this.failuresLeft > 0) {
        this.failuresLeft--;
        job.finished = { at: this.now(), ok: false, failMessage: 'Download failed - Not on your server(s)', folder: null };
        continue;
      }
      const folder = path.join(this.completedDir, ...(job.category ? [job.category] : []), job.name.replace(/[/\\]/g, '_'));
      const t = job.track!;
      const file = path.join(folder, `${String(t.track ?? 1).padStart(2, '0')} - ${t.title.replace(/[/\\]/g, '_')}.mp3`);
      writeTaggedMp3(file, this.template, { artist: t.artist, albumArtist: t.artist, album: t.album, title: t.title, track: t.track ?? 1 });
      job.sizeBytes = fs.statSync(file).size;
      job.finished = { at: this.now(), ok: true, failMessage: '', folder };
    }
  }

  /** 0..1 */
  progress(job: FakeDownload): number {
    if (job.finished) return 1;
    return this.durationMs <= 0 ? 1 : Math.min(1, (this.now() - job.addedAt) / this.durationMs);
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
