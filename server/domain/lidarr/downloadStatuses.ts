import { requests } from '../../db/requests.js';
import type { Album, LidarrClient, QueueItem } from '../../integrations/lidarr/index.js';
import type { LidarrConnection } from './connection.js';
import type { Kernel } from '../../kernel.js';
import type { Broadcaster } from '../events.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'db'> & { hub: Broadcaster };

/** Lidarr-side album download status (decisions §5). */
export type AlbumDownloadState = 'adding' | 'searching' | 'downloading' | 'moving' | 'processing' | 'failed' | 'added' | 'available';

export interface AlbumDownloadStatus {
  status: AlbumDownloadState;
  /** 0–100 while downloading, else null. */
  progress: number | null;
  title: string | null;
  message: string | null;
}

const QUEUE_TTL_MS = 5_000;
const POLL_MS = 10_000;

const failedStates = new Set(['downloadFailed', 'downloadFailedPending', 'importFailed', 'importBlocked']);

function fromQueue(q: QueueItem): AlbumDownloadStatus {
  const state = q.trackedDownloadState ?? '';
  const size = q.size ?? 0;
  const progress = size > 0 ? Math.max(0, Math.min(100, Math.round(((size - (q.sizeleft ?? 0)) / size) * 100))) : null;
  const message = q.errorMessage ?? q.statusMessages?.flatMap((m) => m.messages ?? []).find(Boolean) ?? null;
  if (failedStates.has(state) || q.trackedDownloadStatus === 'error') return { status: 'failed', progress, title: q.title ?? null, message };
  if (state === 'importing') return { status: 'moving', progress: 100, title: q.title ?? null, message };
  if (state === 'importPending' || state === 'imported') return { status: 'processing', progress: 100, title: q.title ?? null, message };
  return { status: 'downloading', progress, title: q.title ?? null, message };
}

const complete = (a: Album) => (a.statistics?.trackCount ?? 0) > 0 && (a.statistics?.trackFileCount ?? 0) >= (a.statistics?.trackCount ?? 0);

/**
 * Download statuses of Lidarr albums from one queue walk, one album read and one command list, and
 * the `download_statuses` message on the `downloads` channel: polled only while someone listens,
 * sent only when the statuses changed.
 */
export class DownloadStatuses {
  private queueCache: { at: number; items: Promise<QueueItem[]> } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private nudgeTimer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  private pollAgain = false;
  private lastSent = '';
  private lastStatuses: Record<string, AlbumDownloadStatus> = {};
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly ctx: Deps,
    private readonly connection: LidarrConnection,
  ) {}

  /** Lidarr's whole queue (bounded), cached briefly so a burst of routes costs one walk. */
  queue(client: LidarrClient): Promise<QueueItem[]> {
    const now = performance.now();
    if (this.queueCache && now - this.queueCache.at < QUEUE_TTL_MS) return this.queueCache.items;
    const items = client.allQueue({ pageSize: 200 }, { maxRecords: 2000 });
    this.queueCache = { at: now, items };
    items.catch(() => (this.queueCache = null));
    return items;
  }

  invalidate(): void {
    this.queueCache = null;
  }

  async forAlbums(albumIds: number[], known?: { queue: QueueItem[]; searching: Set<number> }): Promise<Record<string, AlbumDownloadStatus>> {
    const client = this.connection.require();
    const ids = [...new Set(albumIds)];
    if (ids.length === 0) return {};
    const [queue, albums, searching] = await Promise.all([
      known?.queue ?? this.queue(client),
      client.albums({ albumIds: ids }),
      known?.searching ?? this.searchingAlbums(client),
    ]);
    const byId = new Map(albums.map((a) => [a.id, a]));
    const out: Record<string, AlbumDownloadStatus> = {};
    for (const id of ids) {
      const q = queue.find((item) => item.albumId === id);
      const album = byId.get(id);
      // What Lidarr is doing now wins over what it has: a search runs even for a complete album (upgrades).
      if (q) out[id] = fromQueue(q);
      else if (searching.has(id)) out[id] = { status: 'searching', progress: null, title: album?.title ?? null, message: null };
      else if (album && complete(album)) out[id] = { status: 'available', progress: null, title: album.title, message: null };
      else if (album) out[id] = { status: 'added', progress: null, title: album.title, message: null };
      else if (requests.processingForAlbum(this.ctx.db, id)) out[id] = { status: 'adding', progress: null, title: null, message: null };
    }
    return out;
  }

  /** Every album in Lidarr's queue, being searched for, or with a pending request. */
  async all(): Promise<Record<string, AlbumDownloadStatus>> {
    const client = this.connection.require();
    const [queue, searching] = await Promise.all([this.queue(client), this.searchingAlbums(client)]);
    const ids = new Set<number>(searching);
    for (const q of queue) if (q.albumId) ids.add(q.albumId);
    for (const r of requests.processing(this.ctx.db)) if (r.lidarrAlbumId) ids.add(r.lidarrAlbumId);
    return this.forAlbums([...ids], { queue, searching });
  }

  /** Albums of AlbumSearch commands that are queued or running. */
  private async searchingAlbums(client: LidarrClient): Promise<Set<number>> {
    const searching = new Set<number>();
    for (const c of await client.commands()) {
      if (c.name !== 'AlbumSearch' || (c.status !== 'queued' && c.status !== 'started')) continue;
      for (const id of (c.body as { albumIds?: number[] } | undefined)?.albumIds ?? []) searching.add(Number(id));
    }
    return searching;
  }

  /** Lidarr's queue as download jobs (api.md's download job fields plus Lidarr's). */
  async jobs() {
    const client = this.connection.require();
    const queue = await this.queue(client);
    return queue.map((q) => {
      const s = fromQueue(q);
      return {
        id: String(q.id),
        status: s.status === 'failed' ? 'failed' : 'downloading',
        state: s.status,
        progress: s.progress,
        artistName: (q as { artist?: { artistName?: string } }).artist?.artistName ?? null,
        trackName: null,
        title: q.title ?? null,
        albumId: q.albumId ?? null,
        artistId: q.artistId ?? null,
        size: q.size ?? 0,
        sizeleft: q.sizeleft ?? 0,
        timeleft: q.timeleft ?? null,
        downloadClient: q.downloadClient ?? null,
        protocol: q.protocol ?? null,
        playlistType: 'library',
        streamFormat: null,
        managedBy: 'lidarr' as const,
      };
    });
  }

  // --- the downloads channel ------------------------------------------------------------------

  start(): void {
    this.unsubscribe = this.ctx.hub.onSubscriptionChange((channel) => {
      if (channel === 'downloads') this.adjust();
    });
  }

  stop(): void {
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    if (this.nudgeTimer) clearTimeout(this.nudgeTimer);
    this.timer = null;
  }

  /** Something changed (a request, a webhook): poll soon if anyone listens. */
  nudge(): void {
    this.invalidate();
    if (!this.timer || this.nudgeTimer) return;
    this.nudgeTimer = setTimeout(() => {
      this.nudgeTimer = null;
      void this.poll();
    }, 150);
  }

  private adjust(): void {
    const listening = this.ctx.hub.subscriberCount('downloads') > 0;
    if (listening && !this.timer) {
      this.timer = setInterval(() => void this.poll(), POLL_MS);
      this.timer.unref();
      // A new listener gets the current statuses at once, even when unchanged for others.
      this.lastSent = '';
      void this.poll();
    } else if (!listening && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    } else if (listening) {
      this.lastSent = '';
      void this.poll();
    }
  }

  /** Polls now; a call while a poll runs makes it poll once more after, so no change is missed. */
  poll(): Promise<void> {
    if (this.polling) {
      this.pollAgain = true;
      return this.polling;
    }
    this.polling = (async () => {
      do {
        this.pollAgain = false;
        await this.pollOnce();
      } while (this.pollAgain);
    })().finally(() => (this.polling = null));
    return this.polling;
  }

  private async pollOnce(): Promise<void> {
    if (!this.connection.configured) return;
    let payload: { statuses: Record<string, AlbumDownloadStatus>; stale: boolean; error: string | null };
    try {
      this.invalidate();
      this.lastStatuses = await this.all();
      payload = { statuses: this.lastStatuses, stale: false, error: null };
    } catch (err) {
      payload = { statuses: this.lastStatuses, stale: true, error: err instanceof Error ? err.message : String(err) };
    }
    const key = JSON.stringify(payload);
    if (key === this.lastSent) return;
    this.lastSent = key;
    // Change detection is ours (above); the audience option skips the hub's, so a new listener gets a copy.
    this.ctx.hub.broadcast(
      'downloads',
      'download_statuses',
      { ...payload, updatedAt: new Date(this.ctx.clock.now()).toISOString() },
      { audience: () => true },
    );
  }
}
