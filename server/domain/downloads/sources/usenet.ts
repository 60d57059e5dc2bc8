import fs from 'node:fs';
import path from 'node:path';
import { testUsenetConnection, usenetStatus, usenetTestBodies, type UsenetTestName } from '../../usenet/connection.js';
import { UsenetSource, type UsenetGrab } from '../../usenet/source.js';
import { isInside } from '../layout.js';
import { isAudioExtension, isLosslessFormat, coverage } from '../scoring.js';
import type { Candidate, ClientField, DownloadClientDescriptor, DownloadSource, DownloadSourceDescriptor, SourceContext, TrackQuery, TransferHandle, TransferState } from '../types.js';
import type { SettingsStore } from '../../settings/store.js';
import { usenetSettings } from './usenet.settings.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = { settings: SettingsStore };

/**
 * Usenet as a download source: Prowlarr searches the user's indexers, the chosen release goes to
 * SABnzbd or NZBGet, its progress is followed from queue to history, and the audio file that best
 * matches the wanted track is picked inside the completed folder (the one set or confirmed in
 * Settings, never just the one the client reports) and copied from there: the client's files stay.
 */

/** "Artist - Album (2019) [FLAC]" → its parts; format and bit rate from the bracketed hints. */
export function describeRelease(title: string): { artist: string | null; album: string | null; format: string | null; bitrate: number | null } {
  const [artist, ...rest] = title.split(/\s+-\s+/);
  const album = rest.length ? rest.join(' - ').replace(/\s*[([].*$/, '').trim() || null : null;
  const fmt = /\b(flac|alac|wav|mp3|aac|m4a|ogg|opus)\b/i.exec(title)?.[1]?.toLowerCase() ?? null;
  const kbps = /\b(320|256|192|160|128|v0|v2)\b/i.exec(title)?.[1]?.toLowerCase();
  const bitrate = kbps === 'v0' ? 245 : kbps === 'v2' ? 190 : kbps ? Number(kbps) : null;
  return { artist: rest.length ? (artist?.trim() ?? null) : null, album, format: fmt, bitrate: fmt && isLosslessFormat(fmt) ? null : bitrate };
}

/** Audio files under `folder` (a few levels deep), as [path, name without extension]. */
function audioFiles(folder: string, depth = 3): string[] {
  const out: string[] = [];
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(folder, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = path.join(folder, e.name);
    if (e.isDirectory() && depth > 0) out.push(...audioFiles(p, depth - 1));
    else if (e.isFile() && isAudioExtension(path.extname(e.name))) out.push(p);
  }
  return out;
}

/** The file of the wanted track inside a finished release: best title match, then track number; null when none fits. */
export function pickAudioFile(folder: string, want: { trackName: string; trackNumber: number | null }): string | null {
  const files = audioFiles(folder);
  if (files.length === 0) return null;
  if (files.length === 1) return files[0]!;
  const ranked = files
    .map((f) => {
      const stem = path.basename(f, path.extname(f));
      const num = Number(/^\s*(?:\d-)?(\d{1,3})\b/.exec(stem)?.[1] ?? NaN);
      const score = coverage(want.trackName, stem) + (want.trackNumber !== null && num === want.trackNumber ? 0.3 : 0) + (isLosslessFormat(path.extname(f)) ? 0.01 : 0);
      return { f, score };
    })
    .sort((a, b) => b.score - a.score);
  return ranked[0]!.score >= 0.5 ? ranked[0]!.f : null;
}

export class UsenetDownloadSource implements DownloadSource {
  readonly id = 'usenet' as const;
  readonly label: string;

  constructor(
    private readonly usenet: UsenetSource,
    readonly priority: number,
  ) {
    this.label = `Usenet (Prowlarr + ${usenet.clientName === 'sabnzbd' ? 'SABnzbd' : 'NZBGet'})`;
  }

  async search(query: TrackQuery, signal: AbortSignal): Promise<Candidate[]> {
    const out: Candidate[] = [];
    for (const text of query.queries) {
      signal.throwIfAborted();
      for (const r of await this.usenet.search(text)) {
        const d = describeRelease(r.title);
        const lossless = r.categories.some((c) => c.id === 3040);
        out.push({
          source: 'usenet',
          ref: r.guid,
          title: r.title,
          artistName: d.artist,
          trackName: null,
          albumName: d.album,
          durationMs: null,
          format: d.format ?? (lossless ? 'flac' : null),
          bitrate: d.bitrate,
          sizeBytes: r.size,
          data: { downloadUrl: r.downloadUrl, releaseTitle: r.title, indexer: r.indexer, albumRelease: true },
        });
      }
    }
    return out;
  }

  async start(candidate: Candidate): Promise<TransferHandle> {
    const grab = await this.usenet.grab({ downloadUrl: String(candidate.data.downloadUrl), title: String(candidate.data.releaseTitle ?? candidate.title) });
    return { source: 'usenet', data: { ...grab } };
  }

  async poll(handle: TransferHandle, ctx: SourceContext & { want?: { trackName: string; trackNumber: number | null } }): Promise<TransferState> {
    const p = await this.usenet.progress(handle.data as unknown as UsenetGrab);
    if (p.state === 'queued' || p.state === 'downloading') return { state: p.state, percent: Math.max(0, Math.min(99, p.percent)), message: p.message };
    if (p.state === 'failed' || p.state === 'missing') return { state: 'failed', message: p.message ?? `Usenet download ${p.state}` };
    if (!p.folder || !p.root) return { state: 'failed', message: p.message ?? `${this.usenet.clientName} finished, but its completed folder is not visible from this server (set its completedPath)` };
    const want = (handle.data.want as { trackName: string; trackNumber: number | null } | undefined) ?? ctx.want ?? { trackName: '', trackNumber: null };
    const file = pickAudioFile(p.folder, want);
    if (!file) return { state: 'failed', message: `no audio file for "${want.trackName}" in ${p.folder}` };
    // Inside the completed folder after links are resolved too: a link in it must not lead elsewhere.
    let real: string;
    let root: string;
    try {
      [real, root] = [fs.realpathSync(file), fs.realpathSync(p.root)];
    } catch (err) {
      return { state: 'failed', message: `${file} cannot be read: ${err instanceof Error ? err.message : String(err)}` };
    }
    if (!isInside(root, real)) return { state: 'failed', message: `${file} leads to ${real}, outside the completed folder ${p.root}; refusing to take files from ${path.dirname(real)}` };
    return { state: 'done', percent: 100, file };
  }

  /** Removes the release from SABnzbd's or NZBGet's queue. */
  async cancel(handle: TransferHandle): Promise<void> {
    await this.usenet.cancel(handle.data as unknown as UsenetGrab);
  }
}

/** The Usenet source the settings describe; null unless Prowlarr and a download client are configured. */
export function usenetSourceFactory(ctx: Deps): DownloadSource | null {
  const i = ctx.settings.get().integrations;
  const usenet = UsenetSource.fromSettings(i);
  if (!usenet) return null;
  const priority = usenet.clientName === 'sabnzbd' ? i.sabnzbd.priority : i.nzbget.priority;
  return new UsenetDownloadSource(usenet, priority);
}

const downloadClientFields: ClientField[] = [
  { key: 'enabled', type: 'boolean' },
  { key: 'priority', type: 'number' },
  { key: 'category', type: 'text' },
  { key: 'completedPath', type: 'path' },
  { key: 'confirmedCompletedPath', type: 'path' },
];

/** One of Usenet's three programs: its state from usenetStatus, its test from usenet/connection.ts. */
function usenetClient(
  key: UsenetTestName,
  spec: Pick<DownloadClientDescriptor<Deps>, 'label' | 'role' | 'neutralName' | 'fields'>,
  configured: (status: ReturnType<typeof usenetStatus>) => boolean,
): DownloadClientDescriptor<Deps> {
  return {
    key,
    ...spec,
    state: (ctx) => {
      const i = ctx.settings.get().integrations;
      const block = i[key];
      return { configured: configured(usenetStatus(i)), enabled: block.enabled, priority: 'priority' in block ? block.priority : null, reason: null };
    },
    testBody: usenetTestBodies[key],
    test: (ctx, body) => testUsenetConnection(ctx.settings, key, body as Parameters<typeof testUsenetConnection>[2]),
  };
}

/** Usenet in the list of sources (index.ts): Prowlarr searches, SABnzbd or NZBGet downloads. */
export const usenetDescriptor = {
  id: 'usenet',
  label: 'Usenet',
  noun: 'the Usenet release',
  settings: usenetSettings,
  clients: [
    usenetClient(
      'prowlarr',
      { label: 'Prowlarr', role: 'indexer', neutralName: 'indexermgr', fields: [{ key: 'url', type: 'url', required: true }, { key: 'apiKey', type: 'secret', required: true }, { key: 'enabled', type: 'boolean' }] },
      (u) => u.prowlarrConfigured,
    ),
    usenetClient(
      'sabnzbd',
      { label: 'SABnzbd', role: 'usenet-client', neutralName: 'usenetA', fields: [{ key: 'url', type: 'url', required: true }, { key: 'apiKey', type: 'secret', required: true }, ...downloadClientFields] },
      (u) => u.sabnzbdConfigured,
    ),
    usenetClient(
      'nzbget',
      {
        label: 'NZBGet',
        role: 'usenet-client',
        neutralName: 'usenetB',
        fields: [{ key: 'url', type: 'url', required: true }, { key: 'username', type: 'text' }, { key: 'password', type: 'secret' }, ...downloadClientFields],
      },
      (u) => u.nzbgetConfigured,
    ),
  ],
  // The priority of its download clients: set on both, read from the one that would download.
  priority: (settings) => usenetStatus(settings.integrations).priority,
  priorityPatch: (priority) => ({ sabnzbd: { priority }, nzbget: { priority } }),
  health: (ctx) => {
    const u = usenetStatus(ctx.settings.get().integrations);
    const flags = { sabnzbdConfigured: u.sabnzbdConfigured, nzbgetConfigured: u.nzbgetConfigured, prowlarrConfigured: u.prowlarrConfigured };
    return { flags: { usenetConfigured: u.configured, ...flags }, entry: { configured: u.configured, enabled: u.enabled, priority: u.priority, ...flags } };
  },
  factory: usenetSourceFactory,
} satisfies DownloadSourceDescriptor<'usenet', Deps>;
