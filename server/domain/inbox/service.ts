import crypto from 'node:crypto';
import { inboxRepository, type InboxCandidate, type InboxItemRow, type InboxKind, type InboxRepository, type InboxWrite } from '../../db/inbox.js';
import type { Job } from '../../jobs/queue.js';
import { hasPermission, type Principal } from '../auth/principal.js';
import { ForbiddenError, NotConfiguredError, NotFoundError, ValidationError } from '../errors.js';
import {
  breathe,
  discoveryCandidates,
  newsCandidates,
  releaseCandidates,
  showCandidates,
  type Deps as InboxSourcesDeps,
} from './sources.js';
import type { Kernel } from '../../kernel.js';
import type { LidarrServices } from '../lidarr/service.js';
import type { SettingsStore } from '../settings/store.js';
import type { UsersService } from '../users/service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'db' | 'jobs' | 'scheduler'>
  & {
    settings: SettingsStore;
    users: UsersService;
    inbox: InboxService;
    lidarr: LidarrServices;
  }
  & InboxSourcesDeps;

export const INBOX_QUEUE = 'inbox-refresh';
export const INBOX_TASK = 'inbox-refresh';
export const INBOX_EVERY_MS = 24 * 3600_000;
/** Opening the inbox queues a refresh when the last one is older than this. */
export const INBOX_STALE_MS = 3600_000;
/** Retired and expired rows are kept this long, so an item that comes back keeps its state. */
const KEEP_RETIRED_MS = 30 * 86_400_000;
export const DEFAULT_DISMISS_DAYS = 30;
/** Rows per write transaction of a refresh, and items compared between two breaths. */
const WRITE_BATCH = 200;
const DIFF_SLICE = 500;

/** A short hash of everything a refresh stores for an item. */
export function fingerprintOf(c: InboxCandidate): string {
  return crypto
    .createHash('sha1')
    .update(JSON.stringify([c.title, c.subtitle, c.href, c.imageUrl, c.itemAt, c.expiresAt, c.metadata]))
    .digest('base64url')
    .slice(0, 16);
}

/** The settings' category names, and the item kind each one collects. */
export const CATEGORIES = { releases: 'release', shows: 'show', news: 'news', discoveries: 'discovery' } as const satisfies Record<string, InboxKind>;
export type InboxCategory = keyof typeof CATEGORIES;

export interface InboxItem {
  id: number;
  kind: InboxKind;
  sourceKey: string;
  title: string;
  subtitle: string | null;
  href: string | null;
  imageUrl: string | null;
  metadata: Record<string, unknown>;
  date: string | null;
  createdAt: string;
  isRead: boolean;
  isSaved: boolean;
  isAdded: boolean;
  dismissedUntil: string | null;
  expiresAt: string | null;
  /** `album` (requests the release), `artist` (adds the artist) or null when there is nothing to add. */
  addable: 'album' | 'artist' | null;
}

export type InboxAction = { action: 'read' } | { action: 'unread' } | { action: 'save' } | { action: 'unsave' } | { action: 'dismiss'; days?: number | undefined } | { action: 'add' };

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

function addableOf(row: Pick<InboxItemRow, 'kind' | 'metadata_json'>, metadata: Record<string, unknown>): InboxItem['addable'] {
  if (row.kind === 'release') return typeof metadata.releaseGroupMbid === 'string' ? 'album' : null;
  if (row.kind === 'discovery') return typeof metadata.artistMbid === 'string' && metadata.artistMbid ? 'artist' : null;
  return null;
}

export function presentItem(row: InboxItemRow, now: number): InboxItem {
  const metadata = JSON.parse(row.metadata_json) as Record<string, unknown>;
  return {
    id: row.id,
    kind: row.kind,
    sourceKey: row.source_key,
    title: row.title,
    subtitle: row.subtitle,
    href: row.href,
    imageUrl: row.image_url,
    metadata,
    date: iso(row.item_at),
    createdAt: new Date(row.created_at).toISOString(),
    isRead: row.read_at !== null,
    isSaved: row.saved_at !== null,
    isAdded: row.added_at !== null,
    dismissedUntil: row.dismissed_until !== null && row.dismissed_until > now ? iso(row.dismissed_until) : null,
    expiresAt: iso(row.expires_at),
    addable: addableOf(row, metadata),
  };
}

/** A user's inbox: refreshes from the other areas' caches, the reading view, and the item actions. */
export class InboxService {
  readonly repo: InboxRepository;
  private readonly running = new Map<number, Promise<void>>();

  constructor(private readonly ctx: Deps) {
    this.repo = inboxRepository(ctx.db);
  }

  private settings() {
    return this.ctx.settings.get().inbox;
  }

  enabled(): boolean {
    return this.settings().enabled;
  }

  /** Category switches as set by the administrator. */
  categories(): Record<InboxCategory, boolean> {
    return { ...this.settings().categories };
  }

  /** The kinds shown and collected now (none while the inbox is switched off). */
  kinds(): InboxKind[] {
    if (!this.enabled()) return [];
    const c = this.settings().categories;
    return (Object.keys(CATEGORIES) as InboxCategory[]).filter((k) => c[k]).map((k) => CATEGORIES[k]);
  }

  assertEnabled(): void {
    if (!this.enabled()) throw new NotConfiguredError('inbox.enabled', 'The inbox is switched off in Settings (inbox.enabled)');
  }

  // ---- reading ----------------------------------------------------------------------------------

  list(userId: number, q: { limit: number; offset: number; kind?: InboxKind | undefined; saved?: boolean; unread?: boolean }) {
    const now = this.ctx.clock.now();
    const enabledKinds = this.kinds();
    const kinds = q.kind ? enabledKinds.filter((k) => k === q.kind) : enabledKinds;
    const filter = { kinds, savedOnly: q.saved ?? false, unreadOnly: q.unread ?? false };
    const rows = this.repo.page(userId, now, filter, q.limit, q.offset);
    const unfiltered = !q.kind && !filter.savedOnly && !filter.unreadOnly;
    const counts = unfiltered
      ? this.repo.counts(userId, now, enabledKinds)
      : { total: this.repo.count(userId, now, filter), unread: this.repo.unreadCount(userId, now, enabledKinds) };
    const total = counts.total;
    const state = this.repo.state(userId);
    return {
      enabled: this.enabled(),
      categories: this.categories(),
      items: rows.map((r) => presentItem(r, now)),
      unreadCount: counts.unread,
      total,
      limit: q.limit,
      offset: q.offset,
      hasMore: q.offset + rows.length < total,
      lastRefreshedAt: iso(state?.refreshed_at ?? null),
      isRefreshing: this.isRefreshing(userId),
      ...(state?.warning && { warning: state.warning }),
    };
  }

  unreadCount(userId: number): number {
    return this.repo.unreadCount(userId, this.ctx.clock.now(), this.kinds());
  }

  isRefreshing(userId: number): boolean {
    return this.running.has(userId);
  }

  // ---- refreshing -------------------------------------------------------------------------------

  /** Queues a refresh of one user's inbox (one pending or running per user). */
  enqueue(userId: number): { jobId: number; created: boolean } {
    const { id, created } = this.ctx.jobs.enqueue(INBOX_QUEUE, { userId }, { dedupeKey: `user:${userId}`, name: `inbox user ${userId}` });
    return { jobId: id, created };
  }

  /** Opening the inbox: queues a refresh when there was none in the last hour. */
  refreshIfStale(userId: number): boolean {
    if (!this.enabled() || this.running.has(userId)) return false;
    const last = this.repo.state(userId)?.refreshed_at ?? null;
    if (last !== null && this.ctx.clock.now() - last < INBOX_STALE_MS) return false;
    return this.enqueue(userId).created;
  }

  /** The daily task: one queued refresh per active user. */
  enqueueAll(): number {
    if (!this.enabled()) return 0;
    const users = this.repo.activeUsers();
    for (const id of users) this.enqueue(id);
    return users.length;
  }

  /** Collects every enabled category for the user and stores it; one refresh per user at a time. */
  refresh(userId: number): Promise<void> {
    let run = this.running.get(userId);
    if (!run) {
      run = this.refreshOnce(userId).finally(() => this.running.delete(userId));
      this.running.set(userId, run);
    }
    return run;
  }

  private async refreshOnce(userId: number): Promise<void> {
    if (!this.enabled()) return;
    const now = this.ctx.clock.now();
    const c = this.settings().categories;
    const warnings: string[] = [];
    const found: InboxCandidate[] = [];
    const kinds: InboxKind[] = [];
    const counts: Record<string, number> = {};
    const take = (kind: InboxKind, items: InboxCandidate[]) => {
      kinds.push(kind);
      found.push(...items);
      counts[kind] = items.length;
    };
    if (c.releases) take('release', await releaseCandidates(this.repo, now));
    if (c.shows) {
      const shows = await showCandidates(this.ctx, userId, now);
      // Ticketmaster failing is no reason to retire the shows found before.
      if (shows.warning) warnings.push(shows.warning);
      else take('show', shows.items);
    }
    if (c.news) take('news', this.ctx.settings.get().integrations.news.enabled ? await newsCandidates(this.ctx, this.repo, userId, now) : []);
    if (c.discoveries) take('discovery', discoveryCandidates(this.ctx, userId, now));
    if (this.ctx.users.row(userId)?.status !== 'active') return; // deleted or disabled meanwhile: nothing stored

    const changes = await this.diff(userId, kinds, found, now);
    // Written in small transactions, so HTTP is served between them.
    for (let i = 0; i < changes.insert.length; i += WRITE_BATCH) {
      this.repo.write(userId, { insert: changes.insert.slice(i, i + WRITE_BATCH), update: [], retire: [] }, now);
      await breathe();
    }
    for (let i = 0; i < changes.update.length; i += WRITE_BATCH) {
      this.repo.write(userId, { insert: [], update: changes.update.slice(i, i + WRITE_BATCH), retire: [] }, now);
      await breathe();
    }
    for (let i = 0; i < changes.retire.length; i += WRITE_BATCH) {
      this.repo.write(userId, { insert: [], update: [], retire: changes.retire.slice(i, i + WRITE_BATCH) }, now);
      await breathe();
    }
    this.repo.prune(now - KEEP_RETIRED_MS);
    this.repo.putState(
      userId,
      now,
      { ...counts, created: changes.insert.length, updated: changes.update.length, retired: changes.retire.length },
      warnings.length ? warnings.join('; ') : null,
    );
  }

  /**
   * What to write: new items, items whose content changed (by fingerprint), and shown unsaved items the
   * refresh no longer found. Works a slice at a time, so requests are served in between.
   */
  private async diff(userId: number, kinds: InboxKind[], found: InboxCandidate[], now: number): Promise<InboxWrite> {
    const out: InboxWrite = { insert: [], update: [], retire: [] };
    for (const kind of kinds) {
      const stored = new Map(this.repo.existing(userId, kind).map((r) => [r.source_key, r]));
      await breathe();
      const seen = new Set<string>();
      const mine = found.filter((c) => c.kind === kind);
      for (let i = 0; i < mine.length; i += DIFF_SLICE) {
        for (const c of mine.slice(i, i + DIFF_SLICE)) {
          if (seen.has(c.sourceKey)) continue;
          seen.add(c.sourceKey);
          const item = { ...c, fingerprint: fingerprintOf(c) };
          const r = stored.get(c.sourceKey);
          if (!r) out.insert.push(item);
          else if (r.fingerprint !== item.fingerprint) out.update.push({ id: r.id, item });
        }
        await breathe();
      }
      for (const [key, r] of stored) if (!seen.has(key) && r.saved_at === null && (r.expires_at === null || r.expires_at > now)) out.retire.push(r.id);
    }
    return out;
  }

  // ---- actions ----------------------------------------------------------------------------------

  private item(userId: number, id: number): InboxItemRow {
    const row = this.repo.item(userId, id);
    if (!row) throw new NotFoundError('Inbox item not found', `No inbox item ${id}`);
    return row;
  }

  /** Applies one action to one of the caller's items; `add` requests the album or adds the artist through the library's own code. */
  async act(principal: Principal, id: number, a: InboxAction): Promise<{ item: InboxItem; unreadCount: number; result?: unknown }> {
    this.assertEnabled();
    const userId = principal.userId;
    const row = this.item(userId, id);
    const now = this.ctx.clock.now();
    let result: unknown;
    switch (a.action) {
      case 'read':
        this.repo.setRead(userId, id, row.read_at ?? now, now);
        break;
      case 'unread':
        this.repo.setRead(userId, id, null, now);
        break;
      case 'save':
        this.repo.setSaved(userId, id, row.saved_at ?? now, now);
        break;
      case 'unsave':
        this.repo.setSaved(userId, id, null, now);
        break;
      case 'dismiss':
        this.repo.dismiss(userId, id, now + (a.days ?? DEFAULT_DISMISS_DAYS) * 86_400_000, now);
        break;
      case 'add':
        result = await this.add(principal, row);
        this.repo.markAdded(userId, id, this.ctx.clock.now());
        break;
    }
    return { item: presentItem(this.item(userId, id), this.ctx.clock.now()), unreadCount: this.unreadCount(userId), ...(result !== undefined && { result }) };
  }

  private async add(principal: Principal, row: InboxItemRow): Promise<unknown> {
    const m = JSON.parse(row.metadata_json) as Record<string, unknown>;
    const what = addableOf(row, m);
    const library = this.ctx.lidarr.library;
    if (what === 'album') {
      if (!hasPermission(principal, 'addAlbum')) throw new ForbiddenError('Permission required: addAlbum');
      return library.requestAlbum(principal, {
        albumMbid: m.releaseGroupMbid as string,
        albumName: row.title,
        ...(typeof m.artistMbid === 'string' && { artistMbid: m.artistMbid }),
        ...(typeof m.artistName === 'string' && { artistName: m.artistName }),
      });
    }
    if (what === 'artist') {
      if (!hasPermission(principal, 'addArtist')) throw new ForbiddenError('Permission required: addArtist');
      const { created, artist } = await library.addArtist(principal, { mbid: m.artistMbid as string, artistName: row.title });
      return { created, artist };
    }
    throw new ValidationError(
      row.kind === 'discovery' ? 'action: this artist has no MusicBrainz id, so it cannot be added from the inbox' : `action: a ${row.kind} item has nothing to add`,
      'VALIDATION_ERROR',
    );
  }

  readAll(userId: number): { updated: number; unreadCount: number } {
    this.assertEnabled();
    const updated = this.repo.readAll(userId, this.ctx.clock.now(), this.kinds());
    return { updated, unreadCount: this.unreadCount(userId) };
  }
}

/** Registers the refresh queue and the daily task (areas.ts `services`); health's `inboxEnabled` reads the setting. */
export function startInbox(ctx: Deps): void {
  const inbox = ctx.inbox;
  ctx.jobs.register<{ userId?: number; all?: boolean }>(INBOX_QUEUE, {
    concurrency: 1,
    maxAttempts: 2,
    backoff: { baseMs: 60_000, maxMs: 15 * 60_000 },
    handler: async (job: Job<{ userId?: number; all?: boolean }>) => {
      if (job.payload.all) inbox.enqueueAll();
      else if (typeof job.payload.userId === 'number') await inbox.refresh(job.payload.userId);
    },
  });
  ctx.scheduler.define({ name: INBOX_TASK, every: INBOX_EVERY_MS, queue: INBOX_QUEUE, payload: { all: true }, priority: 10 });
}
