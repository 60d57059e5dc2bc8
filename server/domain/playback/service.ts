import { makePendingJobsDue } from '../../db/jobs.js';
import { playbackRepository, retryUnmatchedPublicationsNow, type PlaybackRepository, type PublicationKey, type PublicationRow } from '../../db/playback.js';
import type { Job } from '../../jobs/queue.js';
import { NotFoundError } from '../errors.js';
import { type PlaylistKind, type PlaylistRef, type PlaylistRegistry } from '../playlists/registry.js';
import type { Settings } from '../settings/schema.js';
import { onPlexLinkChanged, type Deps as PlexLinksDeps } from '../plex/links.js';
import { onPlexSynced, type Deps as PlexSyncDeps } from '../plex/sync.js';
import { jellyfinDestination, type Deps as JellyfinDeps } from './jellyfin.js';
import { PLEX_DESTINATION, plexDestination, type Deps as PlexDestinationDeps } from './plex.js';
import { subsonicDestination, type Deps as SubsonicDestinationDeps } from './subsonic.js';
import type {
  DestinationConnection, DestinationDeps, DestinationKey, DestinationStatus, DestinationTestInput, DestinationTestResult, PlaybackDestination } from './types.js';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';
import type { UsersService } from '../users/service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'db' | 'jobs' | 'jobsRepo' | 'log' | 'onClose' | 'scheduler'>
  & {
    settings: SettingsStore;
    users: UsersService;
    playback: PlaybackService;
    playlists: PlaylistRegistry;
  }
  & PlexLinksDeps
  & PlexSyncDeps
  & JellyfinDeps
  & PlexDestinationDeps
  & SubsonicDestinationDeps;

/**
 * Playback destinations: every playlist (static, flow, shared — whatever the registry knows) is
 * published to each enabled destination and kept in sync. Each change raises the publication's
 * `want_seq` and enqueues one durable job per (destination, playlist) — coalesced by a dedupe key,
 * retried with backoff while the destination is down, and re-found by the reconcile task if a job
 * ever dies — that publishes the newest state.
 *
 * Each destination is one `PlaybackDestination` (its connection under some settings, whose account
 * a playlist goes to, publish and unpublish one playlist, test the connection): Navidrome or any
 * Subsonic server (`subsonic.ts`), Plex (`plex.ts`) and Jellyfin (`jellyfin.ts`).
 */

export const PLAYBACK_BACKOFF = { baseMs: 15_000, maxMs: 30 * 60_000 };
const ATTEMPTS = 20;
/** Publications whose tracks the destination did not know are tried again after this long. */
const UNMATCHED_RETRY_MS = 30 * 60_000;
const RECONCILE_EVERY_MS = 10 * 60_000;

export type {
  DestinationConnection, DestinationDeps, DestinationKey, DestinationPublish, DestinationStatus, DestinationTestInput, DestinationTestResult,
  PlaybackDestination } from './types.js';

export const queueOf = (destination: string) => `playback:${destination}`;
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
const describe = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 500);
const markerOf = (kind: string, id: string) => `Tonearm ${kind}:${id}`;

export class PlaybackService {
  readonly repo: PlaybackRepository;
  private stopListening: (() => void) | null = null;
  private readonly list: PlaybackDestination[];

  constructor(private readonly ctx: Deps) {
    this.repo = playbackRepository(ctx.db);
    const deps: DestinationDeps<Deps> = { ctx, repo: this.repo, retryNow: (key) => this.retryNow(key) };
    this.list = [subsonicDestination(deps), plexDestination(deps), jellyfinDestination(deps)];
  }

  destinations(): PlaybackDestination[] {
    return this.list;
  }

  private destination(key: string): PlaybackDestination | undefined {
    return this.list.find((d) => d.key === key);
  }

  start(): void {
    for (const d of this.list) {
      this.ctx.jobs.register<{ kind: PlaylistKind; id: string }>(queueOf(d.key), {
        concurrency: 1,
        maxAttempts: ATTEMPTS,
        backoff: PLAYBACK_BACKOFF,
        visibilityTimeoutMs: 5 * 60_000,
        handler: (job) => this.run(d, job),
      });
    }
    this.stopListening = this.ctx.playlists.onChange((change) => {
      for (const d of this.list) {
        const key = { destination: d.key, kind: change.ref.kind, id: change.ref.id };
        if (d.connection(this.ctx.settings.get()).publishing) this.touch(key, change.type === 'deleted');
        // Off for now: a playlist published before remembers the change for when publishing is back on.
        else this.repo.bump(key, change.type === 'deleted', this.ctx.clock.now());
      }
    });
    this.ctx.onClose(() => this.stopListening?.());
    this.ctx.settings.onChange((next, previous) => {
      for (const d of this.list) {
        const a = d.connection(next);
        if (a.fingerprint !== d.connection(previous).fingerprint && a.publishing) setImmediate(() => this.reconcile(d.key));
      }
    });
    // A Plex sync maps new tracks: publications that missed some try again now.
    const stopSynced = onPlexSynced(this.ctx, () => {
      retryUnmatchedPublicationsNow(this.ctx.db, PLEX_DESTINATION, this.ctx.clock.now());
      setImmediate(() => this.reconcile('plex'));
    });
    this.ctx.onClose(stopSynced);
    // A user linked or unlinked Plex: their playlists move to their own Plex account or back.
    const stopLinks = onPlexLinkChanged(this.ctx, () => setImmediate(() => this.reconcile('plex')));
    this.ctx.onClose(stopLinks);
    this.ctx.scheduler.define({ name: 'playback-reconcile', every: RECONCILE_EVERY_MS, handler: () => void this.reconcileAll() });
    setImmediate(() => this.reconcileAll());
  }

  /** Records a change and makes sure a job will publish it (one pending job per playlist and destination). */
  touch(key: PublicationKey, deleted: boolean): void {
    try {
      this.ctx.db.transaction(() => {
        this.repo.touch(key, deleted, this.ctx.clock.now());
        this.enqueue(key);
      })();
    } catch (err) {
      this.ctx.log.warn('playlist change not queued for publishing', { destination: key.destination, playlist: key.id, error: describe(err) });
    }
  }

  private enqueue(key: PublicationKey): void {
    const queue = queueOf(key.destination);
    const payload = { kind: key.kind, id: key.id };
    const dedupeKey = `${key.kind}:${key.id}`;
    const first = this.ctx.jobs.enqueue(queue, payload, { dedupeKey, name: `publish ${dedupeKey}` });
    // A running job may already have read the playlist: one follow-up job publishes what changed since.
    if (!first.created && this.ctx.jobsRepo.byId(first.id)?.status === 'running') {
      this.ctx.jobs.enqueue(queue, payload, { dedupeKey: `${dedupeKey}:again`, name: `publish ${dedupeKey}` });
    }
  }

  reconcileAll(): void {
    for (const d of this.list) this.reconcile(d.key);
  }

  /**
   * Brings the publications in line with the playlists and settings: new playlists, renamed owners,
   * another account, excluded kinds and deleted playlists all become jobs; jobs that died are queued
   * again. Runs at start, when the destination's settings change, and every 10 minutes.
   */
  reconcile(destination: DestinationKey): void {
    try {
      const d = this.destination(destination);
      if (!d) return;
      const settings = this.ctx.settings.get();
      const c = d.connection(settings);
      if (!c.publishing) return;
      this.repo.dropOtherAccounts(destination, c.account);
      const now = this.ctx.clock.now();
      const rows = new Map(this.repo.all(destination).map((r) => [`${r.playlist_kind}:${r.playlist_id}`, r]));
      for (const ref of this.allPlaylists()) {
        if (!this.wanted(d, ref, settings)) continue;
        const row = rows.get(`${ref.kind}:${ref.id}`);
        rows.delete(`${ref.kind}:${ref.id}`);
        const key = { destination, kind: ref.kind, id: ref.id };
        const { account, own } = this.accountOf(d, c, ref);
        const stale =
          !row || row.account !== account || row.remote_name !== this.remoteName(ref, settings, destination, own) || row.remote_id === null || row.previous_account !== null;
        if (stale || (row.retry_at !== null && row.retry_at <= now)) {
          if (!row || row.want_seq <= row.done_seq) this.touch(key, false);
          else this.enqueue(key);
        } else if (row.want_seq > row.done_seq) this.enqueue(key);
      }
      // Publications of playlists that are gone or no longer wanted there.
      for (const row of rows.values()) {
        const key = { destination, kind: row.playlist_kind, id: row.playlist_id };
        if (row.remote_id === null && row.previous_account === null && row.want_seq <= row.done_seq && !row.deleted) continue;
        if (row.want_seq > row.done_seq) this.enqueue(key);
        else this.touch(key, false);
      }
    } catch (err) {
      this.ctx.log.warn('playback reconcile failed', { destination, error: describe(err) });
    }
  }

  /** Every playlist of every kind, once (the registry lists what each user may see). */
  private allPlaylists(): PlaylistRef[] {
    const registry = this.ctx.playlists;
    const seen = new Map<string, PlaylistRef>();
    for (const user of this.ctx.users.list()) {
      for (const ref of registry.visibleTo({ id: user.id, role: user.role })) {
        if (ref.ownerUserId !== null && ref.ownerUserId !== user.id) continue;
        seen.set(`${ref.kind}:${ref.id}`, ref);
      }
    }
    return [...seen.values()];
  }

  private wanted(d: PlaybackDestination, ref: PlaylistRef, settings: Settings): boolean {
    const c = d.connection(settings);
    return ref.kind === 'flow' ? c.publishFlows : c.publishPlaylists;
  }

  /** The account a playlist goes to there (its owner's own, where the destination has them). */
  private accountOf(d: PlaybackDestination, c: DestinationConnection, ref: PlaylistRef): { account: string; own: boolean } {
    return d.accountFor?.(c, ref.ownerUserId) ?? { account: c.account, own: false };
  }

  /** "alice · Night drive" when several people share the destination account; the plain name in the owner's own account. */
  remoteName(ref: PlaylistRef, settings: Settings, destination: DestinationKey = 'navidrome', own = false): string {
    if (own) return ref.name;
    const mode = settings.playback[destination].ownerPrefix;
    const prefix = mode === 'always' || (mode === 'auto' && this.ctx.users.count() > 1);
    return prefix && ref.owner ? `${ref.owner} · ${ref.name}` : ref.name;
  }

  /** One job: publish (or delete there) until the newest change is published. */
  private async run(def: PlaybackDestination, job: Job<{ kind: PlaylistKind; id: string }>): Promise<void> {
    const key = { destination: def.key, kind: job.payload.kind, id: job.payload.id };
    for (let round = 0; round < 5; round++) {
      const row = this.repo.get(key);
      if (!row || row.want_seq <= row.done_seq) return;
      const settings = this.ctx.settings.get();
      const c = def.connection(settings);
      // Switched off or unconfigured: the change stays recorded and is published when it is back on.
      if (!c.publishing) return;
      try {
        await this.publishOnce(def, c, row, settings, job.signal);
        this.repo.destinationOk(def.key, this.ctx.clock.now());
      } catch (err) {
        if (job.signal.aborted) throw err;
        const message = describe(err);
        this.repo.failed(key, message, this.ctx.clock.now());
        this.repo.destinationFailed(def.key, message, this.ctx.clock.now());
        this.ctx.log.info('playlist not published yet', { destination: def.key, playlist: key.id, attempt: job.attempt, error: message });
        throw err;
      }
    }
  }

  private async publishOnce(def: PlaybackDestination, c: DestinationConnection, row: PublicationRow, settings: Settings, signal: AbortSignal): Promise<void> {
    const key = { destination: def.key, kind: row.playlist_kind, id: row.playlist_id };
    const seq = row.want_seq;
    const now = () => this.ctx.clock.now();
    const ref = row.deleted ? undefined : this.ctx.playlists.find(row.playlist_id);
    const marker = markerOf(row.playlist_kind, row.playlist_id);
    const live = ref && ref.kind === row.playlist_kind && this.wanted(def, ref, settings) ? ref : undefined;
    const same = (a: string, b: string) => a === b || (def.movable?.(a, b) ?? false);
    // Where it goes: its owner's identity when it is published; the one it was published under when it is taken down.
    const { account, own } = live ? this.accountOf(def, c, live) : { account: row.account !== '' && same(row.account, c.account) ? row.account : c.account, own: false };
    if (row.remote_id !== null && row.account !== '' && row.account !== account && def.movable?.(row.account, account)) {
      // Another identity on the same server (a link made or removed): recorded first, so a crash leaves the old playlist still to delete.
      this.repo.moveTo(key, account, now());
      this.ctx.log.info('playlist moves to another identity there', { destination: def.key, playlist: key.id });
      row = this.repo.get(key)!;
    }
    if (row.previous_account !== null) {
      await def.unpublish({ account: row.previous_account, remoteId: row.previous_remote_id, marker, signal });
      this.repo.previousGone(key, now());
      def.released?.(row.previous_account);
    }
    // Ids from another address or user mean nothing here.
    const remoteId = row.account === account ? row.remote_id : null;
    if (!live) {
      await def.unpublish({ account, remoteId, marker, signal });
      this.ctx.db.transaction(() => {
        const current = this.repo.get(key);
        if (current && current.want_seq > seq && !current.deleted) {
          // Changed again meanwhile: keep the row; the next round decides.
          this.repo.setRemote(key, account, null, null, now());
          this.repo.done(key, { seq, trackCount: 0, matchedCount: 0, retryAt: null }, now());
        } else this.repo.remove(key);
      })();
      def.released?.(account);
      return;
    }
    const name = this.remoteName(live, settings, def.key, own);
    const result = await def.publish({
      account,
      name,
      marker,
      trackIds: this.ctx.playlists.trackIds(live),
      remoteId,
      recordRemote: (id) => this.repo.setRemote(key, account, id, name, now()),
      signal,
    });
    const retryAt = result.matchedCount < result.trackCount ? now() + UNMATCHED_RETRY_MS : null;
    this.repo.done(key, { seq, trackCount: result.trackCount, matchedCount: result.matchedCount, retryAt }, now());
  }

  status(): DestinationStatus[] {
    const settings = this.ctx.settings.get();
    return this.list.map((d) => {
      const c = d.connection(settings);
      const row = this.repo.destination(d.key);
      return {
        key: d.key,
        name: d.name,
        enabled: c.enabled,
        configured: c.configured,
        publishFlows: c.publishFlows,
        publishPlaylists: c.publishPlaylists,
        published: this.repo.publishedCount(d.key),
        pending: this.repo.pendingCount(d.key),
        lastPublishedAt: iso(row.last_published_at),
        lastError: row.last_error,
        lastErrorAt: iso(row.last_error_at),
      };
    });
  }

  /** Tests a destination's connection (api.md §4.13 `playback/:key/test`): the body values or the saved ones. */
  async test(key: string, input: DestinationTestInput = {}): Promise<DestinationTestResult> {
    const def = this.destination(key);
    if (!def) throw new NotFoundError('Playback destination not found', `No playback destination named ${key}`);
    return def.test(input);
  }

  /** The destination answers again: publications waiting for their backoff go now. */
  retryNow(destination: string): void {
    const queue = queueOf(destination);
    const changed = makePendingJobsDue(this.ctx.db, queue, this.ctx.clock.now());
    if (changed > 0) this.ctx.jobs.wake(queue);
    this.reconcile(destination as DestinationKey);
  }
}


/** Registers the publishing queues, listens to playlist changes and reconciles (areas.ts `services`). */
export function startPlayback(ctx: Deps): void {
  ctx.playback.start();
}
