import fs from 'node:fs';
import path from 'node:path';
import { IntegrationError } from '../../../integrations/errors.js';
import type { SlskdClient } from '../../../integrations/slskd/index.js';
import { transferIsFinished, transferSucceeded, type SlskdTransfer } from '../../../integrations/slskd/schemas.js';
import {
  downloadsFolderAccess,
  slskdTakeFolder,
  slskdTestBody,
  testSlskdConnection,
  type Deps as SlskdConnectionDeps,
  type SlskdConnection,
} from '../../slskd/connection.js';
import { isInside } from '../layout.js';
import { isAudioExtension } from '../scoring.js';
import type { Candidate, DownloadSource, DownloadSourceDescriptor, SourceContext, TrackQuery, TransferHandle, TransferState } from '../types.js';
import type { SettingsStore } from '../../settings/store.js';
import { slskdSettings } from './slskd.settings.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = { settings: SettingsStore; slskd: SlskdConnection } & SlskdConnectionDeps;

/**
 * slskd as a download source: a Soulseek search per query (polled until slskd completes it), each
 * shared audio file a candidate (`ref` = `username NUL filename`), a download enqueued with the
 * peer and followed until slskd reports it succeeded, then the file found in slskd's downloads
 * folder as this computer sees it (`integrations.slskd.downloadPath`, else the folder confirmed at
 * the last Test) and copied from there: slskd's own file stays where it is.
 */

export interface SlskdSourceOptions {
  priority: number;
  downloadPath: string;
  /** The folder confirmed at the last Test (integrations.slskd.confirmedDownloadPath), used when downloadPath is empty. */
  confirmedPath?: string;
  /** How long slskd listens for peers per search; default 15 s. */
  searchTimeoutMs?: number;
}

interface SlskdHandleData {
  username: string;
  filename: string;
  size: number;
  id: string | null;
}

/** `Music\Artist\Album\01 - Title.mp3` → its parts (sharers use either separator). */
function remoteParts(filename: string): string[] {
  return filename.split(/[\\/]+/).filter((p) => p.length > 0);
}

/** Guesses artist, album and title from a sharer's path: `…\Artist\Album\NN - Title.ext` or `Artist - Title.ext`. */
export function describeRemoteFile(filename: string): { artist: string | null; album: string | null; title: string; ext: string | null } {
  const parts = remoteParts(filename);
  const base = parts.at(-1) ?? filename;
  const ext = path.extname(base).replace(/^\./, '').toLowerCase() || null;
  let stem = ext ? base.slice(0, -(ext.length + 1)) : base;
  stem = stem.replace(/^\s*(\d{1,3}[-.]?\d{0,3})\s*[-._)]?\s*/, '');
  let artist: string | null = null;
  const dash = stem.split(/\s+-\s+/);
  if (dash.length >= 2) {
    artist = dash[0]!.trim();
    stem = dash.slice(1).join(' - ');
  }
  const folder = parts.at(-2) ?? null;
  const album = folder ? folder.replace(/^.*?\s+-\s+/, '').replace(/\s*[([]\d{4}[)\]]\s*$/, '').trim() : null;
  if (!artist && parts.length >= 3) artist = parts.at(-3) ?? null;
  return { artist, album, title: stem.trim(), ext };
}

export class SlskdSource implements DownloadSource {
  readonly id = 'slskd' as const;
  readonly label = 'slskd (Soulseek)';
  readonly priority: number;

  constructor(
    private readonly client: SlskdClient,
    private readonly options: SlskdSourceOptions,
  ) {
    this.priority = options.priority;
  }

  async search(query: TrackQuery, signal: AbortSignal): Promise<Candidate[]> {
    const out: Candidate[] = [];
    for (const text of query.queries) {
      signal.throwIfAborted();
      const started = await this.client.startSearch({ searchText: text, searchTimeoutMs: this.options.searchTimeoutMs ?? 15_000 });
      try {
        const done = await this.client.waitForSearch(started.id, { signal, timeoutMs: (this.options.searchTimeoutMs ?? 15_000) + 20_000, settleMs: 3000 });
        // Peers with a free slot and a short queue first: they deliver soonest.
        const responses = [...done.responses].sort(
          (a, b) => Number(b.hasFreeUploadSlot ?? false) - Number(a.hasFreeUploadSlot ?? false) || (a.queueLength ?? 0) - (b.queueLength ?? 0) || (b.uploadSpeed ?? 0) - (a.uploadSpeed ?? 0),
        );
        for (const r of responses) {
          for (const f of r.files) {
            if (f.isLocked) continue;
            const d = describeRemoteFile(f.filename);
            const format = (f.extension || d.ext || '').replace(/^\./, '').toLowerCase() || null;
            if (!isAudioExtension(format)) continue;
            out.push({
              source: 'slskd',
              ref: `${r.username}\u0000${f.filename}`,
              title: f.filename,
              artistName: d.artist,
              trackName: d.title,
              albumName: d.album,
              durationMs: f.length ? f.length * 1000 : null,
              format,
              bitrate: f.bitRate ?? null,
              sizeBytes: f.size,
              data: { username: r.username, filename: f.filename, size: f.size },
            });
          }
        }
      } finally {
        await this.client.deleteSearch(started.id).catch(() => undefined);
      }
    }
    return out;
  }

  async start(candidate: Candidate): Promise<TransferHandle> {
    const username = String(candidate.data.username);
    const filename = String(candidate.data.filename);
    const size = Number(candidate.data.size ?? candidate.sizeBytes ?? 0);
    // A transfer enqueued before a restart (the handle was not saved yet) is followed, not enqueued twice.
    const existing = await this.find(username, filename);
    const adopt =
      existing &&
      (!transferIsFinished(existing.state) || (transferSucceeded(existing.state) && !('error' in (await this.localFile(filename)))));
    if (existing && adopt) {
      return { source: 'slskd', data: { username, filename, size, id: existing.id } satisfies SlskdHandleData };
    }
    await this.client.enqueue(username, [{ filename, size }]);
    const made = await this.find(username, filename);
    return { source: 'slskd', data: { username, filename, size, id: made?.id ?? null } satisfies SlskdHandleData };
  }

  async poll(handle: TransferHandle, _ctx: SourceContext): Promise<TransferState> {
    const h = handle.data as unknown as SlskdHandleData;
    let t: SlskdTransfer | undefined;
    try {
      t = h.id ? await this.client.download(h.username, h.id) : await this.find(h.username, h.filename);
    } catch (err) {
      if (err instanceof IntegrationError && err.kind === 'not_found') t = undefined;
      else throw err;
    }
    if (!t) return { state: 'failed', message: 'slskd no longer knows this transfer' };
    if (!h.id) h.id = t.id;
    if (!transferIsFinished(t.state)) {
      const percent = Math.max(0, Math.min(99, t.percentComplete || (t.size > 0 ? (100 * t.bytesTransferred) / t.size : 0)));
      return { state: /Queued|Requested|Initializing/i.test(t.state) && t.bytesTransferred === 0 ? 'queued' : 'downloading', percent, message: t.state };
    }
    if (!transferSucceeded(t.state)) return { state: 'failed', message: `slskd transfer ended "${t.state}"${t.exception ? `: ${t.exception}` : ''}` };
    const file = await this.localFile(h.filename);
    return 'error' in file ? { state: 'failed', message: file.error } : { state: 'done', percent: 100, file: file.path };
  }

  async cancel(handle: TransferHandle): Promise<void> {
    const h = handle.data as unknown as SlskdHandleData;
    const id = h.id ?? (await this.find(h.username, h.filename))?.id;
    if (id) await this.client.cancelDownload(h.username, id, true);
  }

  /** The newest transfer of this file from this peer. */
  private async find(username: string, filename: string): Promise<SlskdTransfer | undefined> {
    const all = (await this.client.downloads()).map((t, i) => ({ t, i })).filter(({ t }) => t.username === username && t.filename === filename);
    const at = (t: SlskdTransfer) => Date.parse(t.requestedAt ?? '') || 0;
    return all.sort((a, b) => at(b.t) - at(a.t) || b.i - a.i)[0]?.t;
  }

  /**
   * Where slskd put a finished download: `<downloads>/<sharer's last folder>/<file name>`, or a name
   * with slskd's uniqueness suffix, inside the folder an administrator set or confirmed (never just
   * the one slskd reports now). A name, or a link, that would lead outside that folder is refused.
   */
  private async localFile(remote: string): Promise<{ path: string } | { error: string }> {
    const take = slskdTakeFolder({ downloadPath: this.options.downloadPath, confirmedDownloadPath: this.options.confirmedPath ?? '' });
    if (!take) {
      const reported = await this.client.downloadsDirectory().catch(() => null);
      return {
        error: `slskd reports its downloads folder as ${reported ?? '(none)'}, but no folder is set or confirmed to take downloads from: set integrations.slskd.downloadPath, or press Test slskd in Settings → Downloads to confirm ${reported ?? 'the folder it reports'}`,
      };
    }
    const access = downloadsFolderAccess(take.path, take.path);
    if (!access.reachable) return { error: `slskd's downloads folder is not reachable from this server: ${access.reason}` };
    const root = path.resolve(take.path);
    const parts = remoteParts(remote);
    const base = parts.at(-1) ?? '';
    const dir = parts.length >= 2 ? path.join(root, parts.at(-2)!) : root;
    const exact = path.join(dir, base);
    if (!base || !isInside(root, dir) || !isInside(root, exact) || exact === root) {
      return { error: `slskd reported an unsafe file name (${JSON.stringify(remote)}); refusing to read outside its downloads folder ${root}` };
    }
    let outside: string | null = null;
    const usable = (p: string) => {
      try {
        const real = fs.realpathSync(p);
        if (!isInside(fs.realpathSync(root), real)) {
          outside ??= `${p} leads to ${real}, outside slskd's downloads folder ${root}; refusing to take a file from ${path.dirname(real)}`;
          return false;
        }
        return fs.statSync(real).isFile();
      } catch {
        return false;
      }
    };
    if (usable(exact)) return { path: exact };
    const ext = path.extname(base);
    const stem = base.slice(0, base.length - ext.length);
    try {
      const near = fs
        .readdirSync(dir)
        .filter((n) => n.startsWith(`${stem}_`) && n.endsWith(ext))
        .map((n) => path.join(dir, n))
        .filter(usable)
        .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
      if (near[0]) return { path: near[0] };
    } catch {
      // the folder is missing: reported below
    }
    if (outside) return { error: outside };
    return { error: `slskd finished the transfer but ${exact} is not on this computer (check integrations.slskd.downloadPath)` };
  }
}

/** The slskd source the settings describe; null when slskd is not configured or switched off. */
export function slskdSourceFactory(ctx: Deps): DownloadSource | null {
  const client = ctx.slskd.current();
  if (!client) return null;
  const s = ctx.settings.get().integrations.slskd;
  return new SlskdSource(client, { priority: s.priority, downloadPath: s.downloadPath, confirmedPath: s.confirmedDownloadPath });
}

const filled = (...values: string[]) => values.every((v) => v.trim() !== '');

/** slskd in the list of sources (index.ts). */
export const slskdDescriptor = {
  id: 'slskd',
  label: 'Soulseek (slskd)',
  noun: 'slskd',
  settings: slskdSettings,
  clients: [
    {
      key: 'slskd',
      label: 'Soulseek (slskd)',
      role: 'peer-to-peer',
      neutralName: 'p2pclient',
      fields: [
        { key: 'url', type: 'url', required: true },
        { key: 'apiKey', type: 'secret', required: true },
        { key: 'enabled', type: 'boolean' },
        { key: 'priority', type: 'number' },
        { key: 'downloadPath', type: 'path' },
        { key: 'confirmedDownloadPath', type: 'path' },
      ],
      state: (ctx) => {
        const s = ctx.settings.get().integrations.slskd;
        return { configured: filled(s.url, s.apiKey), enabled: s.enabled, priority: s.priority, reason: null };
      },
      testBody: slskdTestBody,
      test: (ctx, body) => testSlskdConnection(ctx, body as { url?: string; apiKey?: string } | undefined),
    },
  ],
  priority: (settings) => settings.integrations.slskd.priority,
  priorityPatch: (priority) => ({ slskd: { priority } }),
  health: (ctx) => {
    const s = ctx.settings.get().integrations.slskd;
    const configured = filled(s.url, s.apiKey);
    return { flags: { slskdConfigured: s.enabled && configured }, entry: { configured: s.enabled && configured, enabled: s.enabled, priority: s.priority } };
  },
  factory: slskdSourceFactory,
} satisfies DownloadSourceDescriptor<'slskd', Deps>;
