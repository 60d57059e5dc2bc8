import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Output formats /rest can transcode to, with ffmpeg codec arguments and default bit rates. */
export const TARGETS = {
  mp3: { mime: 'audio/mpeg', suffix: 'mp3', args: ['-c:a', 'libmp3lame', '-f', 'mp3'], defaultKbps: 192 },
  opus: { mime: 'audio/ogg', suffix: 'opus', args: ['-c:a', 'libopus', '-f', 'ogg'], defaultKbps: 128 },
  aac: { mime: 'audio/aac', suffix: 'aac', args: ['-c:a', 'aac', '-f', 'adts'], defaultKbps: 256 },
} as const;
export type TargetFormat = keyof typeof TARGETS;

export function isTargetFormat(f: string): f is TargetFormat {
  return f in TARGETS;
}

/** ffmpeg from the configured path if it exists, else the first one on PATH; null when there is none. */
export function locateFfmpeg(configured: string | undefined, envPath = process.env.PATH ?? ''): string | null {
  const usable = (file: string) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  };
  if (configured && usable(configured)) return configured;
  const names = process.platform === 'win32' ? ['ffmpeg.exe'] : ['ffmpeg'];
  for (const dir of envPath.split(path.delimiter).filter(Boolean))
    for (const name of names) if (usable(path.join(dir, name))) return path.join(dir, name);
  return null;
}

export interface TranscodeJob {
  input: string;
  /** Identifies the source version (file id, size, mtime) so an edited file is transcoded anew. */
  sourceVersion: string;
  format: TargetFormat;
  kbps: number;
  offsetSeconds: number;
}

export class TranscodeLimitError extends Error {}
export class TranscoderUnavailableError extends Error {}

interface CacheEntry {
  file: string;
  size: number;
  usedAt: number;
}

/**
 * Runs ffmpeg for /rest streams and keeps finished outputs in a size-capped disk cache (oldest use
 * evicted first), so a repeated request is a plain file with a length and ranges. At most
 * `maxConcurrent()` ffmpeg processes run at once; each is killed when its client goes away.
 */
export class Transcoder {
  private running = 0;
  private readonly entries = new Map<string, CacheEntry>();

  constructor(
    readonly ffmpeg: string | null,
    private readonly cacheDir: string,
    private readonly limits: () => { cacheSizeMb: number; maxConcurrent: number },
  ) {
    fs.mkdirSync(cacheDir, { recursive: true });
    // Finished outputs from earlier runs stay usable; partial ones are dropped.
    for (const name of fs.readdirSync(cacheDir)) {
      const file = path.join(cacheDir, name);
      if (name.endsWith('.part')) {
        fs.rmSync(file, { force: true });
        continue;
      }
      const stat = fs.statSync(file);
      this.entries.set(name, { file, size: stat.size, usedAt: stat.mtimeMs });
    }
  }

  get available(): boolean {
    return this.ffmpeg !== null;
  }

  get active(): number {
    return this.running;
  }

  keyOf(job: TranscodeJob): string {
    const digest = createHash('sha256')
      .update(`${job.sourceVersion}|${job.format}|${job.kbps}|${job.offsetSeconds}`)
      .digest('hex')
      .slice(0, 32);
    return `${digest}.${TARGETS[job.format].suffix}`;
  }

  /** The cached output for a job, if a complete one exists. */
  cached(job: TranscodeJob): string | null {
    const name = this.keyOf(job);
    const entry = this.entries.get(name);
    if (!entry) return null;
    if (!fs.existsSync(entry.file)) {
      this.entries.delete(name);
      return null;
    }
    entry.usedAt = Date.now();
    return entry.file;
  }

  /**
   * Starts ffmpeg; output goes to `sink` and to a cache file that is kept only if ffmpeg finishes.
   * Throws TranscodeLimitError when the concurrency limit is reached.
   */
  start(
    job: TranscodeJob,
    onData: (chunk: Buffer) => boolean,
    /** `detail`: the end of ffmpeg's error output when it failed. */
    onEnd: (ok: boolean, detail?: string) => void,
  ): { stop(): void; process: ChildProcess; resume(): void; pause(): void } {
    if (!this.ffmpeg) throw new TranscoderUnavailableError('ffmpeg is not available on this server');
    if (this.running >= this.limits().maxConcurrent) throw new TranscodeLimitError('Too many transcodes in progress');
    const target = TARGETS[job.format];
    const args = [
      '-hide_banner', '-loglevel', 'error', '-nostdin',
      ...(job.offsetSeconds > 0 ? ['-ss', String(job.offsetSeconds)] : []),
      '-i', job.input, '-map', '0:a:0', '-vn', '-map_metadata', '-1',
      ...target.args, '-b:a', `${job.kbps}k`, 'pipe:1',
    ];
    const name = this.keyOf(job);
    const finalFile = path.join(this.cacheDir, name);
    const partFile = `${finalFile}.${process.pid}.${Math.random().toString(36).slice(2)}.part`;
    const out = fs.createWriteStream(partFile);
    const child = spawn(this.ffmpeg, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    // Only the last bit of ffmpeg's (error-level) log is kept, for the failure's log line.
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-500);
    });
    this.running++;
    let stopped = false;
    let released = false;
    const release = () => {
      if (!released) {
        released = true;
        this.running--;
      }
    };
    child.stdout!.on('data', (chunk: Buffer) => {
      out.write(chunk);
      if (!onData(chunk)) child.stdout!.pause();
    });
    child.on('error', (err) => {
      release();
      out.destroy();
      fs.rm(partFile, { force: true }, () => undefined);
      onEnd(false, err.message);
    });
    // The slot frees when the process exits, even if its output pipe is still paused.
    child.on('exit', release);
    child.on('close', (code) => {
      release();
      const ok = code === 0 && !stopped;
      out.end(() => {
        if (ok) {
          try {
            fs.renameSync(partFile, finalFile);
            this.entries.set(name, { file: finalFile, size: fs.statSync(finalFile).size, usedAt: Date.now() });
            this.evict();
          } catch {
            fs.rmSync(partFile, { force: true });
          }
        } else {
          fs.rmSync(partFile, { force: true });
        }
        onEnd(ok, ok ? undefined : stderr.trim() || `ffmpeg exited with code ${code}`);
      });
    });
    return {
      process: child,
      stop: () => {
        if (child.exitCode === null && !stopped) {
          stopped = true;
          child.kill('SIGKILL');
          // A paused pipe would hold back 'close'; nobody reads the rest.
          child.stdout!.destroy();
        }
      },
      pause: () => child.stdout!.pause(),
      resume: () => child.stdout!.resume(),
    };
  }

  /** Drops least recently used outputs until the cache fits its cap. */
  evict(): void {
    const cap = this.limits().cacheSizeMb * 1024 * 1024;
    let total = [...this.entries.values()].reduce((n, e) => n + e.size, 0);
    if (total <= cap) return;
    const byAge = [...this.entries.entries()].sort((a, b) => a[1].usedAt - b[1].usedAt);
    for (const [name, entry] of byAge) {
      if (total <= cap) break;
      fs.rmSync(entry.file, { force: true });
      this.entries.delete(name);
      total -= entry.size;
    }
  }

  cacheBytes(): number {
    return [...this.entries.values()].reduce((n, e) => n + e.size, 0);
  }
}
