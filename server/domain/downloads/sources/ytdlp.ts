import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isPartial, OUTPUT_NAME, type YtdlpClient, type YtdlpEntry } from '../../../integrations/ytdlp/index.js';
import { testYtdlp, ytdlpClient, ytdlpStatus, ytdlpTestBody, type Deps as YtdlpConnectionDeps } from '../../ytdlp/connection.js';
import { downloadsRoot, isInside, STAGING_DIR, type Deps as DownloadsLayoutDeps } from '../layout.js';
import type { Candidate, DownloadSource, DownloadSourceDescriptor, SourceContext, TrackQuery, TransferHandle, TransferState } from '../types.js';
import type { Kernel } from '../../../kernel.js';
import type { SettingsStore } from '../../settings/store.js';
import { ytdlpSettings } from './ytdlp.settings.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'onClose'>
  & {
    settings: SettingsStore;
    ytdlpRuns: YtdlpRuns;
  }
  & DownloadsLayoutDeps
  & YtdlpConnectionDeps;

/**
 * yt-dlp as a download source. Searching asks `ytsearchN:` for each of the pipeline's query strings
 * (until one finds something); starting runs `yt-dlp -x` into the job's staging folder.
 *
 * A command-line process cannot be followed after the server restarts, so the process lives in an
 * in-memory table keyed by a run id that the handle carries, and `poll` reads it:
 * - the run is there: its progress, its file (`done`) or its error (`failed`);
 * - the run is not there (the server restarted, so the process died with it): `poll` starts yt-dlp
 *   again with the same run id and answers `queued`. yt-dlp keeps unfinished data in `.part` files
 *   (it is not given `--no-part`), so the new run resumes the partial download, and a file from the
 *   killed run is never taken as finished: only the new run's own report of its file makes the
 *   transfer `done`. If the new run fails, `poll` says `failed` with yt-dlp's cause and the pipeline
 *   moves on to the next candidate or source.
 * The job's abort signal is not tied to the process (a pipeline may start a transfer in one queue
 * run and poll it in later ones); `cancel` ends it, and closing the server ends every run.
 */

interface Run {
  controller: AbortController;
  stagingDir: string;
  state: TransferState;
  finishedAt: number | null;
}

/** Finished runs are forgotten after this long (a poll after that starts the download again). */
const KEEP_FINISHED_MS = 6 * 60 * 60_000;

export class YtdlpRuns {
  private readonly runs = new Map<string, Run>();

  get(id: string): Run | undefined {
    return this.runs.get(id);
  }

  start(id: string, client: YtdlpClient, url: string, stagingDir: string, now: () => number): Run {
    this.prune(now());
    this.runs.get(id)?.controller.abort();
    const run: Run = { controller: new AbortController(), stagingDir, state: { state: 'queued', percent: 0 }, finishedAt: null };
    this.runs.set(id, run);
    killOrphan(stagingDir);
    client
      .download(url, stagingDir, {
        signal: run.controller.signal,
        onSpawn: (pid) => writePidFile(stagingDir, pid),
        onProgress: (p) => {
          if (run.finishedAt === null) run.state = { state: 'downloading', percent: Math.floor(Math.min(99, p.percent ?? 0)) };
        },
      })
      .then(
        ({ file }) => {
          if (!run.controller.signal.aborted) run.state = { state: 'done', percent: 100, file };
        },
        (err: unknown) => {
          run.state = { state: 'failed', message: run.controller.signal.aborted ? 'cancelled' : `yt-dlp: ${err instanceof Error ? err.message : String(err)}` };
        },
      )
      .finally(() => {
        run.finishedAt = now();
        fs.rmSync(path.join(stagingDir, PID_FILE), { force: true });
      });
    return run;
  }

  /** Ends a run; it stays listed as cancelled so a late poll does not start it again. */
  stop(id: string, now: number): Run | undefined {
    const run = this.runs.get(id);
    if (run && run.finishedAt === null) {
      run.controller.abort();
      run.state = { state: 'failed', message: 'cancelled' };
      run.finishedAt = now;
    }
    return run;
  }

  stopAll(): void {
    for (const run of this.runs.values()) run.controller.abort();
    this.runs.clear();
  }

  get running(): number {
    return [...this.runs.values()].filter((r) => r.finishedAt === null).length;
  }

  private prune(now: number): void {
    for (const [id, run] of this.runs) if (run.finishedAt !== null && now - run.finishedAt > KEEP_FINISHED_MS) this.runs.delete(id);
  }
}

/**
 * A killed server (kill -9) leaves its yt-dlp running as an orphan. Each run notes its process id
 * and the process's start time (Linux: /proc/<pid>/stat) in the staging folder, so the run that
 * replaces it after a restart ends the orphan first and two processes never write the same file.
 */
export const PID_FILE = '.ytdlp-run.json';

export function processStart(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function writePidFile(dir: string, pid: number): void {
  try {
    fs.writeFileSync(path.join(dir, PID_FILE), JSON.stringify({ pid, start: processStart(pid) }));
  } catch {
    // the folder is gone (cancelled); nothing to note
  }
}

/** Ends the process a previous server left running in `dir`, when it is provably that process. */
export function killOrphan(dir: string): void {
  let noted: { pid?: unknown; start?: unknown };
  try {
    noted = JSON.parse(fs.readFileSync(path.join(dir, PID_FILE), 'utf8')) as typeof noted;
  } catch {
    return;
  }
  const { pid, start } = noted;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 1 || typeof start !== 'string' || pid === process.pid) return;
  if (processStart(pid) !== start) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  fs.rmSync(path.join(dir, PID_FILE), { force: true });
}

/** The running yt-dlp processes of a server (one table per server, built by server/wiring.ts; closing the server ends them). */
export function createYtdlpRuns(ctx: Pick<Kernel, 'onClose'>): YtdlpRuns {
  const runs = new YtdlpRuns();
  ctx.onClose(() => runs.stopAll());
  return runs;
}

const NOISE =
  /\s*[([](?:official[^)\]]*|[^)\]]*\b(?:music video|video clip|lyric video|lyrics?|visuali[sz]er)\b[^)\]]*|video|audio|hd|hq|4k|mv|m\/v)[)\]]/gi;

function clean(s: string): string {
  return s
    .replace(NOISE, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^["'“”‘’]+|["'“”‘’]+$/g, '')
    .trim();
}

/**
 * Artist and track from a video: the site's own music fields when it has them, else "Artist - Title"
 * titles, else a "<Artist> - Topic" channel (YouTube's auto-generated artist channels) with the
 * title; otherwise only the cleaned title is known.
 */
export function parseVideoTitle(entry: Pick<YtdlpEntry, 'title' | 'artist' | 'track' | 'uploader' | 'channel'>): { artistName: string | null; trackName: string } {
  if (entry.artist && entry.track) return { artistName: entry.artist, trackName: entry.track };
  const title = entry.title.trim();
  const m = /^(.+?)\s+[-–—]{1,2}\s+(.+)$/.exec(title);
  if (m) {
    const artist = clean(m[1]!);
    const track = clean(m[2]!);
    if (artist && track) return { artistName: artist, trackName: track };
  }
  const channel = entry.channel ?? entry.uploader ?? '';
  const topic = /^(.+?) - Topic$/.exec(channel);
  return { artistName: entry.artist ?? (topic ? topic[1]! : null), trackName: entry.track ?? (clean(title) || title) };
}

const CODEC_FORMAT: [RegExp, string][] = [
  [/^mp4a/i, 'm4a'],
  [/^opus/i, 'opus'],
  [/^mp3/i, 'mp3'],
  [/^vorbis/i, 'ogg'],
  [/^flac/i, 'flac'],
];

/** The format the download will have, when it can be told before downloading. */
function expectedFormat(entry: YtdlpEntry, audioFormat: string): string | null {
  if (audioFormat !== 'best') return audioFormat;
  if (entry.acodec) return CODEC_FORMAT.find(([re]) => re.test(entry.acodec!))?.[1] ?? null;
  const ext = entry.ext?.toLowerCase() ?? null;
  return ext && ['mp3', 'm4a', 'opus', 'ogg', 'flac', 'wav'].includes(ext) ? ext : null;
}

export function toCandidate(entry: YtdlpEntry, audioFormat: string): Candidate {
  const { artistName, trackName } = parseVideoTitle(entry);
  return {
    source: 'ytdlp',
    ref: entry.url,
    title: entry.title,
    artistName,
    trackName,
    albumName: entry.album,
    durationMs: entry.durationSeconds !== null ? Math.round(entry.durationSeconds * 1000) : null,
    format: expectedFormat(entry, audioFormat),
    bitrate: entry.abr !== null ? Math.round(entry.abr) : null,
    sizeBytes: null,
    data: { url: entry.url, id: entry.id, uploader: entry.uploader, channel: entry.channel },
  };
}

/** At most this many query strings are tried per search (each is one yt-dlp run). */
const MAX_QUERIES = 3;

export class YtdlpSource implements DownloadSource {
  readonly id = 'ytdlp' as const;
  readonly label = 'yt-dlp';

  constructor(
    private readonly ctx: Deps,
    private readonly client: YtdlpClient,
    readonly priority: number,
    private readonly options: { searchResults: number; audioFormat: string },
  ) {}

  async search(query: TrackQuery, signal: AbortSignal): Promise<Candidate[]> {
    const queries = [...new Set([...query.queries, `${query.artistName} ${query.trackName}`].map((q) => q.trim()).filter(Boolean))].slice(0, MAX_QUERIES);
    for (const q of queries) {
      signal.throwIfAborted();
      const entries = await this.client.search(q, this.options.searchResults, signal);
      const seen = new Set<string>();
      const candidates = entries.filter((e) => /^https?:\/\//i.test(e.url) && !seen.has(e.url) && seen.add(e.url)).map((e) => toCandidate(e, this.options.audioFormat));
      if (candidates.length) return candidates;
    }
    return [];
  }

  async start(candidate: Candidate, ctx: SourceContext): Promise<TransferHandle> {
    const url = typeof candidate.data.url === 'string' ? candidate.data.url : candidate.ref;
    if (!/^https?:\/\//i.test(url)) throw new Error(`yt-dlp: not an http(s) address: ${url.slice(0, 200)}`);
    this.assertStaging(ctx.stagingDir);
    const runId = randomUUID();
    this.ctx.ytdlpRuns.start(runId, this.client, url, ctx.stagingDir, () => this.ctx.clock.now());
    return { source: 'ytdlp', data: { runId, url, stagingDir: ctx.stagingDir } };
  }

  async poll(handle: TransferHandle, ctx: SourceContext): Promise<TransferState> {
    const { runId, url } = handle.data as { runId?: unknown; url?: unknown };
    if (typeof runId !== 'string' || typeof url !== 'string') return { state: 'failed', message: 'yt-dlp: the transfer handle is incomplete' };
    const runs = this.ctx.ytdlpRuns;
    const run = runs.get(runId);
    if (run) return run.state;
    // Restarted server: the process is gone. Run it again (it resumes the .part file).
    this.assertStaging(ctx.stagingDir);
    runs.start(runId, this.client, url, ctx.stagingDir, () => this.ctx.clock.now());
    return { state: 'queued', percent: 0, message: 'yt-dlp was started again after a server restart; it resumes the partial download' };
  }

  async cancel(handle: TransferHandle): Promise<void> {
    const { runId, stagingDir } = handle.data as { runId?: unknown; stagingDir?: unknown };
    const run = typeof runId === 'string' ? this.ctx.ytdlpRuns.stop(runId, this.ctx.clock.now()) : undefined;
    const dir = run?.stagingDir ?? (typeof stagingDir === 'string' ? stagingDir : null);
    if (!dir || !this.insideStaging(dir)) return;
    if (!run) killOrphan(dir);
    // Give the killed process a moment to close its files, then remove its partial data (only ours).
    await new Promise((r) => setTimeout(r, 100));
    let names: string[] = [];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const n of names)
      if (n === PID_FILE || (n.startsWith(`${OUTPUT_NAME}.`) && (isPartial(n) || run?.state.state !== 'done'))) fs.rmSync(path.join(dir, n), { force: true });
  }

  private insideStaging(dir: string): boolean {
    return isInside(path.join(downloadsRoot(this.ctx), STAGING_DIR), dir);
  }

  private assertStaging(dir: string): void {
    if (!this.insideStaging(dir)) throw new Error('yt-dlp: refusing to download outside the staging folder');
  }
}

/** The source the settings describe; null when switched off or when no yt-dlp binary is found. */
export function ytdlpSource(ctx: Deps): YtdlpSource | null {
  const status = ytdlpStatus(ctx);
  if (!status.enabled || !status.binary) return null;
  const s = ctx.settings.get().integrations.ytdlp;
  return new YtdlpSource(ctx, ytdlpClient(ctx), s.priority, { searchResults: s.searchResults, audioFormat: s.audioFormat });
}

/** yt-dlp in the list of sources (index.ts). */
export const ytdlpDescriptor = {
  id: 'ytdlp',
  label: 'yt-dlp',
  noun: 'yt-dlp',
  settings: ytdlpSettings,
  clients: [
    {
      key: 'ytdlp',
      label: 'yt-dlp',
      role: 'command-line',
      neutralName: 'videodl',
      fields: [
        { key: 'path', type: 'path' },
        { key: 'enabled', type: 'boolean' },
        { key: 'priority', type: 'number' },
        { key: 'searchResults', type: 'number' },
        { key: 'audioFormat', type: 'select', options: ytdlpSettings.ytdlp.shape.audioFormat.unwrap().options },
      ],
      state: (ctx) => {
        const y = ytdlpStatus(ctx);
        return { configured: y.configured, enabled: y.enabled, priority: y.priority, reason: y.reason };
      },
      testBody: ytdlpTestBody,
      test: (ctx, body) => testYtdlp(ctx, (body as { path?: string } | undefined)?.path || undefined),
    },
  ],
  priority: (settings) => settings.integrations.ytdlp.priority,
  priorityPatch: (priority) => ({ ytdlp: { priority } }),
  health: (ctx) => {
    const y = ytdlpStatus(ctx);
    return { flags: { ytdlpConfigured: y.configured && y.enabled }, entry: { configured: y.configured, enabled: y.enabled, priority: y.priority } };
  },
  factory: ytdlpSource,
  // The table of running yt-dlp processes, so closing the server ends them.
  start: (ctx) => void ctx.ytdlpRuns,
} satisfies DownloadSourceDescriptor<'ytdlp', Deps>;
