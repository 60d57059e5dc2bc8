import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { IntegrationError } from '../errors.js';
import { lowerChild } from '../../priority.js';

/**
 * yt-dlp, the command-line downloader: a program this server runs, not a web API. Every call
 * spawns the binary with an argument array (never a shell), in its own process group so that an
 * abort or a timeout ends yt-dlp and the ffmpeg it started together. Searches use `ytsearchN:`
 * with `--flat-playlist --dump-json` (one JSON object per line); downloads extract the audio (`-x`)
 * into a folder the caller owns and report where the file landed with `--print after_move:`.
 */

export const SERVICE = 'yt-dlp';

/** Options every call shares: no user config files, no cache, plain output. */
const COMMON = ['--ignore-config', '--no-cache-dir', '--no-colors', '--no-warnings'];

const PROGRESS_TAG = '[tonearm-progress]';
const FILE_TAG = '[tonearm-file]';
/** The file name every download gets inside its folder (yt-dlp adds the extension). */
export const OUTPUT_NAME = 'ytdlp-audio';

export type AudioFormat = 'best' | 'm4a' | 'opus' | 'mp3' | 'flac' | 'vorbis' | 'wav' | 'aac' | 'alac';

/** One search result or the description of one video, from yt-dlp's JSON. */
export interface YtdlpEntry {
  id: string;
  title: string;
  /** The page to hand back to `download` (webpage_url, or the flat entry's url). */
  url: string;
  uploader: string | null;
  channel: string | null;
  /** Music metadata some sites (YouTube Music) provide. */
  artist: string | null;
  track: string | null;
  album: string | null;
  durationSeconds: number | null;
  /** Container or extension as yt-dlp reports it (often absent in flat search results). */
  ext: string | null;
  acodec: string | null;
  /** Audio bitrate in kbit/s. */
  abr: number | null;
  liveStatus: string | null;
}

export interface DownloadProgress {
  downloadedBytes: number;
  totalBytes: number | null;
  /** 0–100, or null while the size is unknown. */
  percent: number | null;
}

export interface DownloadResult {
  /** The finished audio file; always inside the output folder. */
  file: string;
}

export interface YtdlpClientOptions {
  binary: string;
  /** ffmpeg for the audio extraction; null lets yt-dlp look for it itself. */
  ffmpeg: string | null;
  /** Version and search calls (default 60 s). */
  timeoutMs?: number;
  /** One download (default 10 min). */
  downloadTimeoutMs?: number;
  audioFormat?: AudioFormat;
  env?: NodeJS.ProcessEnv;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** One line of `--dump-json` output as an entry; null for lines that are not a usable entry. */
export function parseEntry(line: string): YtdlpEntry | null {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return null;
  }
  if (!raw || typeof raw !== 'object') return null;
  const o = raw as Record<string, unknown>;
  const url = str(o.webpage_url) ?? str(o.url) ?? str(o.original_url);
  const id = str(o.id) ?? (typeof o.id === 'number' ? String(o.id) : null);
  if (!url || !id) return null;
  return {
    id,
    title: str(o.title) ?? str(o.fulltitle) ?? id,
    url,
    uploader: str(o.uploader),
    channel: str(o.channel),
    artist: str(o.artist) ?? str(o.creator),
    track: str(o.track),
    album: str(o.album),
    durationSeconds: num(o.duration),
    ext: str(o.ext),
    acodec: str(o.acodec) === 'none' ? null : str(o.acodec),
    abr: num(o.abr),
    liveStatus: str(o.live_status),
  };
}

/** The text after the last `ERROR:` in yt-dlp's stderr, without its "please report this issue" advice. */
export function errorCause(stderr: string): string | null {
  const lines = stderr.split(/\r?\n/).filter((l) => l.trim() !== '');
  const err = [...lines].reverse().find((l) => l.startsWith('ERROR:'));
  const line = err ?? lines.at(-1);
  if (!line) return null;
  return line
    .replace(/^ERROR:\s*/, '')
    .replace(/;\s*please report this issue.*$/i, '')
    .replace(/\s*\(caused by .*\)\s*$/, '')
    .trim()
    .slice(0, 500);
}

function errorKind(cause: string): IntegrationError['kind'] {
  if (/HTTP Error 404|not found|does not exist|Video unavailable/i.test(cause)) return 'not_found';
  if (/HTTP Error 40[13]|Sign in|private video/i.test(cause)) return 'unauthorized';
  if (/HTTP Error 429|Too Many Requests/i.test(cause)) return 'rate_limited';
  if (/timed? ?out/i.test(cause)) return 'timeout';
  if (/HTTP Error 5\d\d/i.test(cause)) return 'server_error';
  if (/Connection refused|Name or service not known|Temporary failure in name resolution|Network is unreachable|Unable to download/i.test(cause))
    return 'unreachable';
  if (/Unsupported URL/i.test(cause)) return 'bad_request';
  return 'bad_response';
}

/** Progress from one stdout line: our `--progress-template` line, or yt-dlp's own `[download]  42.0%`. */
export function parseProgress(line: string): DownloadProgress | null {
  if (line.startsWith(PROGRESS_TAG)) {
    const [done, total, estimate] = line.slice(PROGRESS_TAG.length).trim().split(/\s+/).map((t) => (/^\d+(\.\d+)?$/.test(t) ? Number(t) : null));
    if (done == null) return null;
    const size = total ?? estimate ?? null;
    return { downloadedBytes: done, totalBytes: size, percent: size ? Math.min(100, (100 * done) / size) : null };
  }
  const m = /^\[download\]\s+(\d+(?:\.\d+)?)%/.exec(line);
  if (m) return { downloadedBytes: 0, totalBytes: null, percent: Number(m[1]) };
  return null;
}

/** True for files a download leaves while it is not finished. */
export function isPartial(name: string): boolean {
  return /\.(part|ytdl|temp|tmp)$/i.test(name) || /\.part-Frag\d+/i.test(name) || /\.temp\.[^.]+$/i.test(name);
}

const AUDIO_EXTS = new Set(['mp3', 'm4a', 'opus', 'ogg', 'oga', 'flac', 'wav', 'aac', 'webm', 'mka', 'alac', 'aiff', 'wma']);

/** The finished download in `dir` (our output name, not partial), or null. */
export function finishedFile(dir: string): string | null {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return null;
  }
  const found = names.filter((n) => n.startsWith(`${OUTPUT_NAME}.`) && !isPartial(n) && AUDIO_EXTS.has(path.extname(n).slice(1).toLowerCase()));
  return found.length ? path.join(dir, found[0]!) : null;
}

/** Runs the binary; resolves with its output, rejects with an IntegrationError naming the cause. */
interface RunOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  onLine?: (line: string) => void;
  /** Keep stdout in the result (off for downloads, whose output is read line by line). */
  collect?: boolean;
  /** Called with the process id once yt-dlp runs (its process group has the same id). */
  onSpawn?: (pid: number) => void;
}

/** What `yt-dlp --version` prints: its release date, maybe with a build number or tag after it. */
const YTDLP_VERSION = /^\d{4}\.\d{1,2}\.\d{1,2}(?:[.+-][\w.+-]*)?$/;

export class YtdlpClient {
  readonly binary: string;
  readonly ffmpeg: string | null;
  private readonly timeoutMs: number;
  private readonly downloadTimeoutMs: number;
  private readonly audioFormat: AudioFormat;
  private readonly env: NodeJS.ProcessEnv;

  constructor(options: YtdlpClientOptions) {
    this.binary = options.binary;
    this.ffmpeg = options.ffmpeg;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.downloadTimeoutMs = options.downloadTimeoutMs ?? 10 * 60_000;
    this.audioFormat = options.audioFormat ?? 'best';
    this.env = options.env ?? process.env;
  }

  /**
   * `yt-dlp --version`, which prints its release date as the version (`2025.01.15`, nightlies
   * `2025.01.15.232905`) and nothing else. Any other answer means the file is some other program:
   * `bad_response`, naming what it printed.
   */
  async version(signal?: AbortSignal): Promise<string> {
    const { stdout } = await this.run(['--version'], { timeoutMs: Math.min(this.timeoutMs, 15_000), signal, collect: true });
    const first = stdout.trim().split(/\r?\n/)[0]?.trim() ?? '';
    if (!first) throw new IntegrationError(SERVICE, 'bad_response', `${this.binary} --version printed nothing; is it yt-dlp?`);
    if (!YTDLP_VERSION.test(first)) {
      const shown = first.length > 80 ? `${first.slice(0, 80)}…` : first;
      throw new IntegrationError(SERVICE, 'bad_response', `${this.binary} is not yt-dlp: its --version answered "${shown}", where yt-dlp answers with a date such as 2025.01.15`);
    }
    return first;
  }

  /** Up to `n` (1–20) results of a YouTube search, without downloading anything; live streams left out. */
  async search(query: string, n: number, signal?: AbortSignal): Promise<YtdlpEntry[]> {
    const count = Math.max(1, Math.min(20, Math.floor(n)));
    const q = query.replace(/[\r\n]+/g, ' ').trim();
    if (!q) return [];
    const { stdout } = await this.run([...COMMON, '--flat-playlist', '--dump-json', '--no-download', '--', `ytsearch${count}:${q}`], {
      timeoutMs: this.timeoutMs,
      signal,
      collect: true,
    });
    const entries: YtdlpEntry[] = [];
    for (const line of stdout.split('\n')) {
      const e = line.trim() ? parseEntry(line) : null;
      if (e && e.liveStatus !== 'is_live' && e.liveStatus !== 'is_upcoming') entries.push(e);
    }
    return entries.slice(0, count);
  }

  /** The arguments of a download (exported for tests and logs). */
  downloadArgs(url: string, outDir: string): string[] {
    return [
      ...COMMON,
      '--no-playlist',
      '--newline',
      '--no-mtime',
      '--socket-timeout',
      '30',
      '-x',
      '--audio-format',
      this.audioFormat,
      '--audio-quality',
      '0',
      ...(this.ffmpeg ? ['--ffmpeg-location', this.ffmpeg] : []),
      '--progress',
      '--progress-template',
      `download:${PROGRESS_TAG} %(progress.downloaded_bytes)s %(progress.total_bytes)s %(progress.total_bytes_estimate)s`,
      '--print',
      `after_move:${FILE_TAG} %(filepath)s`,
      '-o',
      path.join(outDir, `${OUTPUT_NAME}.%(ext)s`),
      '--',
      url,
    ];
  }

  /**
   * Downloads `url` and extracts its audio into `outDir` (created when missing). Partial data stays
   * in `.part` files (yt-dlp's default), so a half-finished file never looks finished and a second
   * run resumes it. The answer is always a file inside `outDir`.
   */
  async download(url: string, outDir: string, options: { signal?: AbortSignal; onProgress?: (p: DownloadProgress) => void; timeoutMs?: number; onSpawn?: (pid: number) => void } = {}): Promise<DownloadResult> {
    if (!/^https?:\/\//i.test(url)) throw new IntegrationError(SERVICE, 'bad_request', `not an http(s) address: ${url.slice(0, 200)}`);
    const dir = path.resolve(outDir);
    fs.mkdirSync(dir, { recursive: true });
    let reported: string | null = null;
    await this.run(this.downloadArgs(url, dir), {
      timeoutMs: options.timeoutMs ?? this.downloadTimeoutMs,
      signal: options.signal,
      onSpawn: options.onSpawn,
      onLine: (line) => {
        if (line.startsWith(FILE_TAG)) reported = line.slice(FILE_TAG.length).trim();
        else {
          const p = parseProgress(line);
          if (p && options.onProgress) options.onProgress(p);
        }
      },
    });
    const candidates = [reported, finishedFile(dir)].filter((f): f is string => !!f);
    for (const f of candidates) {
      const full = path.resolve(f);
      const rel = path.relative(dir, full);
      if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) continue;
      if (fs.existsSync(full) && fs.statSync(full).isFile()) return { file: full };
    }
    throw new IntegrationError(SERVICE, 'bad_response', 'yt-dlp finished but left no audio file in the download folder');
  }

  private run(args: string[], options: RunOptions): Promise<{ stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      if (options.signal?.aborted) return reject(abortError(options.signal));
      let child: ReturnType<typeof spawn>;
      try {
        child = spawn(this.binary, args, {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...this.env, PYTHONUNBUFFERED: '1', PYTHONIOENCODING: 'utf-8' },
          // Its own process group: killing the group also ends ffmpeg started by yt-dlp.
          detached: process.platform !== 'win32',
          windowsHide: true,
        });
      } catch (err) {
        return reject(spawnError(this.binary, err));
      }
      // A download tool is background work (priority.ts); the programs it starts inherit this.
      lowerChild(child.pid);
      if (child.pid !== undefined) options.onSpawn?.(child.pid);
      let stdout = '';
      let stderr = '';
      let pending = '';
      let settled = false;
      let killedFor: 'timeout' | 'abort' | null = null;

      const kill = () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        killGroup(child.pid, 'SIGTERM');
        const hard = setTimeout(() => killGroup(child.pid, 'SIGKILL'), 2000);
        hard.unref();
        child.once('exit', () => clearTimeout(hard));
      };
      const timer = setTimeout(() => {
        killedFor = 'timeout';
        kill();
      }, options.timeoutMs);
      timer.unref();
      const onAbort = () => {
        killedFor = 'abort';
        kill();
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const done = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        fn();
      };

      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (chunk: string) => {
        if (options.collect) stdout += chunk;
        if (!options.onLine) return;
        pending += chunk;
        const lines = pending.split(/\r?\n/);
        pending = lines.pop() ?? '';
        for (const l of lines) options.onLine(l);
      });
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (chunk: string) => {
        stderr = (stderr + chunk).slice(-20_000);
      });
      child.on('error', (err) => done(() => reject(spawnError(this.binary, err))));
      child.on('close', (code, signal) => {
        if (pending && options.onLine) options.onLine(pending);
        done(() => {
          if (killedFor === 'abort') return reject(abortError(options.signal));
          if (killedFor === 'timeout') return reject(new IntegrationError(SERVICE, 'timeout', `yt-dlp did not finish within ${Math.round(options.timeoutMs / 1000)} s`));
          if (code === 0) return resolve({ stdout, stderr });
          const cause = errorCause(stderr) ?? (signal ? `yt-dlp was ended by ${signal}` : `yt-dlp exited with code ${code}`);
          reject(new IntegrationError(SERVICE, errorKind(cause), cause, undefined, { exitCode: code }));
        });
      });
    });
  }
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    if (process.platform === 'win32') process.kill(pid, signal);
    else process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

function abortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error) return reason;
  const err = new Error('yt-dlp was stopped');
  err.name = 'AbortError';
  return err;
}

function spawnError(binary: string, err: unknown): IntegrationError {
  const code = (err as NodeJS.ErrnoException).code;
  const why = code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'is not executable' : (err as Error).message;
  return new IntegrationError(SERVICE, 'unreachable', `could not run ${binary}: it ${why}`);
}

/** An executable regular file? */
function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export interface YtdlpLocation {
  /** The binary to run, or null. */
  binary: string | null;
  /** Where it came from, or why none was found. */
  origin: 'setting' | 'env' | 'path' | null;
  /** Why no binary was found (null when one was). */
  reason: string | null;
}

/**
 * The yt-dlp to run: the `integrations.ytdlp.path` setting, else `YTDLP_PATH`, else the
 * first `yt-dlp` on PATH. A configured path that does not exist is reported, not skipped.
 */
export function locateYtdlp(setting: string, envPath: string | undefined, searchPath = process.env.PATH ?? ''): YtdlpLocation {
  for (const [value, origin, name] of [
    [setting.trim(), 'setting', 'the integrations.ytdlp.path setting'],
    [(envPath ?? '').trim(), 'env', 'YTDLP_PATH'],
  ] as const) {
    if (!value) continue;
    if (executable(value)) return { binary: path.resolve(value), origin, reason: null };
    return { binary: null, origin: null, reason: `yt-dlp was not found at ${value} (${name}); install it or set its path` };
  }
  const names = process.platform === 'win32' ? ['yt-dlp.exe', 'yt-dlp'] : ['yt-dlp'];
  for (const dir of searchPath.split(path.delimiter).filter(Boolean))
    for (const n of names) if (executable(path.join(dir, n))) return { binary: path.join(dir, n), origin: 'path', reason: null };
  return { binary: null, origin: null, reason: 'yt-dlp was not found on PATH; install it or set its path' };
}
