import type { AppContext } from '../../context.js';
import { playbackRepository, type PlaybackRepository, type PublicationKey, type PublicationRow } from '../../db/playback.js';
import { IntegrationError } from '../../integrations/errors.js';
import { NavidromeClient } from '../../integrations/navidrome/index.js';
import type { Job } from '../../jobs/queue.js';
import { NotConfiguredError, NotFoundError } from '../errors.js';
import { playlistsOf, type PlaylistKind, type PlaylistRef } from '../playlists/registry.js';
import type { Settings } from '../settings/schema.js';
import { plexAccount, plexTracks } from '../../db/plex.js';
import { plexServerOf } from '../plex/connection.js';
import { onPlexSynced } from '../plex/sync.js';
import { plexAccountFor, plexBaseAccount, plexServerAccount, plexServerForAccount, prunePlexIdentities } from '../plex/identities.js';
import { onPlexLinkChanged } from '../plex/links.js';
import { PLEX_DESTINATION, publishToPlex, unpublishFromPlex } from './plex.js';
import { publishPlaylist, unpublishPlaylist, type SubsonicTarget } from './subsonic.js';

/**
 * Playback destinations: every playlist (static, flow, shared — whatever the registry knows) is
 * published to each enabled destination and kept in sync. Each change raises the publication's
 * `want_seq` and enqueues one durable job per (destination, playlist) — coalesced by a dedupe key,
 * retried with backoff while the destination is down, and re-found by the reconcile task if a job
 * ever dies — that publishes the newest state.
 *
 * Each destination is one `PlaybackDestination` (its connection under some settings, publish and
 * unpublish one playlist): Navidrome or any Subsonic server (`subsonic.ts`) and Plex (`plex.ts`).
 */

export const PLAYBACK_BACKOFF = { baseMs: 15_000, maxMs: 30 * 60_000 };
const ATTEMPTS = 20;
/** Publications whose tracks the destination did not know are tried again after this long. */
const UNMATCHED_RETRY_MS = 30 * 60_000;
const RECONCILE_EVERY_MS = 10 * 60_000;

export interface DestinationStatus {
  key: string;
  name: string;
  enabled: boolean;
  configured: boolean;
  publishFlows: boolean;
  publishPlaylists: boolean;
  published: number;
  pending: number;
  lastPublishedAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
}

export type DestinationKey = 'navidrome' | 'plex';

/** What the service needs to know about a destination under some settings. */
export interface DestinationConnection {
  enabled: boolean;
  configured: boolean;
  /** Enabled and configured: changes are published. */
  publishing: boolean;
  publishFlows: boolean;
  publishPlaylists: boolean;
  ownerPrefix: 'auto' | 'always' | 'never';
  /** Who remote ids belong to (address and user, or server and library): another one starts afresh. */
  account: string;
  /** Changes whenever anything that decides what is published there changes. */
  fingerprint: string;
}

export interface DestinationPublish {
  account: string;
  name: string;
  /** `Tonearm <kind>:<id>`: marks our playlist there. */
  marker: string;
  trackIds: number[];
  /** The remote id stored for this playlist (same account), or null. */
  remoteId: string | null;
  /** Called as soon as the remote id is known. */
  recordRemote: (remoteId: string) => void;
  signal: AbortSignal;
}

/** One playback destination: its connection, and publishing and unpublishing one playlist there. */
export interface PlaybackDestination {
  key: DestinationKey;
  name: string;
  connection(settings: Settings): DestinationConnection;
  /** Makes the remote playlist hold the matched tracks in order; remoteId null when there was nothing to create yet. */
  publish(p: DestinationPublish): Promise<{ remoteId: string | null; trackCount: number; matchedCount: number }>;
  unpublish(p: { account: string; remoteId: string | null; marker: string; signal: AbortSignal }): Promise<void>;
  /**
   * The account a playlist of this owner is published under, and whether it is the owner's own
   * (their own playlist there: no owner prefix). Without it, every playlist goes to the connection's
   * account, named with the owner prefix.
   */
  accountFor?(c: DestinationConnection, ownerUserId: number | null): { account: string; own: boolean };
  /**
   * A publication on account `from` moves to `to` (same server, another identity): the playlist is
   * deleted under the old identity, then made under the new. Without it, another account starts afresh.
   */
  movable?(from: string, to: string): boolean;
  /** A publication left an account (moved away, or taken down): what was kept for it may go. */
  released?(account: string): void;
}

export const queueOf = (destination: string) => `playback:${destination}`;
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
const describe = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 500);
const markerOf = (kind: string, id: string) => `Tonearm ${kind}:${id}`;

function subsonicConnection(settings: Settings) {
  const c = settings.integrations.navidrome;
  const options = settings.playback.navidrome;
  const configured = c.url !== '' && c.username !== '' && c.password !== '';
  return { ...c, ...options, integrationEnabled: c.enabled, publishing: options.enabled && c.enabled && configured, configured };
}

/** Identifies the account remote ids belong to: another address or user starts afresh. */
const accountOf = (url: string, username: string) => `${url.replace(/\/+$/, '')}|${username}`;

export class PlaybackService {
  readonly repo: PlaybackRepository;
  private stopListening: (() => void) | null = null;
  private readonly list: PlaybackDestination[];

  constructor(private readonly ctx: AppContext) {
    this.repo = playbackRepository(ctx.db);
    this.list = [this.navidrome(), this.plex()];
  }

  destinations(): PlaybackDestination[] {
    return this.list;
  }

  private destination(key: string): PlaybackDestination | undefined {
    return this.list.find((d) => d.key === key);
  }

  /** Navidrome or any Subsonic server (`integrations.navidrome` + `playback.navidrome`). */
  private navidrome(): PlaybackDestination {
    const def = { key: 'navidrome' as const, name: 'Navidrome' };
    const connection = (settings: Settings): DestinationConnection => {
      const c = subsonicConnection(settings);
      return {
        enabled: c.enabled,
        configured: c.configured,
        publishing: c.publishing,
        publishFlows: c.publishFlows,
        publishPlaylists: c.publishPlaylists,
        ownerPrefix: c.ownerPrefix,
        account: accountOf(c.url, c.username),
        fingerprint: JSON.stringify([c.publishing, c.url, c.username, c.password, c.publishFlows, c.publishPlaylists, c.ownerPrefix]),
      };
    };
    const target = (account: string, signal: AbortSignal): SubsonicTarget => {
      const c = subsonicConnection(this.ctx.settings.get());
      return {
        destination: def.key,
        account,
        username: c.username,
        client: new NavidromeClient({ baseUrl: c.url, username: c.username, password: c.password, timeoutMs: 20_000, label: def.name }),
        repo: this.repo,
        now: () => this.ctx.clock.now(),
        signal,
        scanTimeoutMs: c.scanTimeoutSeconds * 1000,
        log: this.ctx.log,
      };
    };
    return {
      ...def,
      connection,
      publish: (p) => publishPlaylist(target(p.account, p.signal), p),
      unpublish: (p) => unpublishPlaylist(target(p.account, p.signal), p.remoteId, p.marker),
    };
  }

  /** Plex: native playlists of the music library chosen in `integrations.plex` (`playback.plex`). */
  private plex(): PlaybackDestination {
    const ctx = this.ctx;
    const server = async (account: string) => {
      const s = await plexServerForAccount(ctx, account);
      if (!s) throw new NotConfiguredError('plex-link', 'The Plex link this playlist was published under is gone');
      return s;
    };
    return {
      key: 'plex',
      name: 'Plex',
      connection: (settings) => {
        const i = settings.integrations.plex;
        const o = settings.playback.plex;
        const configured = i.enabled && i.url !== '' && i.machineIdentifier !== '' && i.librarySectionId !== '' && plexAccount.get(this.ctx.db) !== undefined;
        return {
          enabled: o.enabled,
          configured,
          publishing: o.enabled && configured,
          publishFlows: o.publishFlows,
          publishPlaylists: o.publishPlaylists,
          ownerPrefix: o.ownerPrefix,
          account: plexServerAccount(i),
          fingerprint: JSON.stringify([o.enabled && configured, i.url, i.machineIdentifier, i.librarySectionId, o.publishFlows, o.publishPlaylists, o.ownerPrefix]),
        };
      },
      // Users with a Plex link get their playlists as their own Plex playlists (plex/identities.ts).
      accountFor: (c, ownerUserId) => plexAccountFor(ctx, c.account, ownerUserId),
      movable: (from, to) => plexBaseAccount(from) === plexBaseAccount(to),
      publish: async (p) => publishToPlex({ ctx, repo: this.repo, server: await server(p.account) }, p),
      unpublish: async (p) => {
        const s = await plexServerForAccount(ctx, p.account);
        if (s === null) {
          // A link that is gone and whose server token was never known: nothing can reach that playlist.
          ctx.log.warn('a Plex playlist of a removed link cannot be deleted there', { marker: p.marker });
        } else {
          try {
            await unpublishFromPlex({ ctx, repo: this.repo, server: s }, p.remoteId, p.marker);
          } catch (err) {
            // The old identity lost access (token revoked, server unshared): that playlist is out of reach for good.
            if (!(err instanceof IntegrationError && err.kind === 'unauthorized' && p.account !== plexBaseAccount(p.account))) throw err;
            ctx.log.warn('a Plex playlist of a previous link cannot be deleted there: its token is refused', { marker: p.marker });
          }
        }
      },
      released: () => void prunePlexIdentities(ctx),
    };
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
    this.stopListening = playlistsOf(this.ctx).onChange((change) => {
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
      this.ctx.db
        .prepare('UPDATE playback_publications SET retry_at = ? WHERE destination = ? AND retry_at IS NOT NULL AND matched_count < track_count')
        .run(this.ctx.clock.now(), PLEX_DESTINATION);
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
    const registry = playlistsOf(this.ctx);
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
    const ref = row.deleted ? undefined : playlistsOf(this.ctx).find(row.playlist_id);
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
      trackIds: playlistsOf(this.ctx).trackIds(live),
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

  /**
   * Checks a destination with the given (or saved) credentials: ping, and whether the account may
   * manage playlists and ask for scans. A success also makes waiting retries due now.
   */
  async test(key: string, creds: { url: string; username: string; password: string }) {
    const def = this.destination(key);
    if (!def) throw new NotFoundError('Playback destination not found', `No playback destination named ${key}`);
    if (!creds.url || !creds.username) {
      throw new NotConfiguredError(`integrations.${key}`, `${def.name} is not configured: set its URL, username and password`);
    }
    const client = new NavidromeClient({ baseUrl: creds.url, username: creds.username, password: creds.password, timeoutMs: 10_000, label: def.name });
    const info = await client.ping();
    const playlists = await client.getPlaylists();
    let canScan = true;
    try {
      await client.getScanStatus();
    } catch (err) {
      if (!(err instanceof IntegrationError) || err.kind === 'unreachable' || err.kind === 'timeout') throw err;
      canScan = false;
    }
    const saved = subsonicConnection(this.ctx.settings.get());
    if (saved.publishing && creds.url === saved.url && creds.username === saved.username) this.retryNow(def.key);
    return {
      success: true as const,
      key: def.key,
      version: info.version,
      type: info.type ?? null,
      serverVersion: info.serverVersion ?? null,
      authentication: client.authMode,
      playlists: playlists.length,
      canScan,
      message: `Connected to ${info.type ?? 'a Subsonic server'} ${info.serverVersion ?? info.version}${canScan ? '' : ' (this user cannot start library scans: new tracks are matched after the server scans on its own)'}`,
    };
  }

  /**
   * Checks the Plex destination with the saved connection: the server answers as the chosen machine,
   * the chosen music library is there, playlists can be listed; how many library tracks the sync maps.
   */
  async testPlex() {
    const s = this.ctx.settings.get().integrations.plex;
    const server = plexServerOf(this.ctx);
    if (!server.librarySectionId) throw new NotConfiguredError('integrations.plex.librarySectionId', 'Choose the Plex music library first: Settings → Plex');
    const identity = await server.client.identity();
    if (s.machineIdentifier && identity.machineIdentifier !== s.machineIdentifier) {
      throw new IntegrationError('plex', 'wrong_url', `The Plex server at this address is not ${s.serverName || 'the chosen server'} any more: choose the server again in Settings → Plex`);
    }
    const section = (await server.client.musicSections()).find((x) => x.key === server.librarySectionId);
    if (!section) throw new NotFoundError('Plex library not found', `The Plex music library ${server.librarySectionId} is gone: choose another in Settings → Plex`);
    const playlists = await server.client.playlists();
    const counts = plexTracks.counts(this.ctx.db, server.librarySectionId);
    if (this.destination('plex')!.connection(this.ctx.settings.get()).publishing) this.retryNow('plex');
    return {
      success: true as const,
      key: 'plex',
      version: identity.version ?? '',
      type: 'Plex Media Server',
      serverVersion: identity.version,
      authentication: 'token' as const,
      playlists: playlists.length,
      canScan: true,
      message: `Connected to Plex Media Server ${identity.version ?? ''}`.trim() + `: library “${section.title}”, ${counts.matched} of ${counts.total} Plex tracks matched to this library${counts.syncedAt === null ? ' (not synced yet: publishing syncs first)' : ''}`,
    };
  }

  /** The destination answers again: publications waiting for their backoff go now. */
  retryNow(destination: string): void {
    const queue = queueOf(destination);
    const changed = this.ctx.db
      .prepare(`UPDATE jobs SET run_at = ? WHERE queue = ? AND status = 'pending' AND run_at > ?`)
      .run(this.ctx.clock.now(), queue, this.ctx.clock.now()).changes;
    if (changed > 0) this.ctx.jobs.wake(queue);
    this.reconcile(destination as DestinationKey);
  }
}

const services = new WeakMap<AppContext, PlaybackService>();

export function playbackOf(ctx: AppContext): PlaybackService {
  let s = services.get(ctx);
  if (!s) {
    s = new PlaybackService(ctx);
    services.set(ctx, s);
  }
  return s;
}

/** Registers the publishing queues, listens to playlist changes and reconciles (areas.ts `services`). */
export function startPlayback(ctx: AppContext): void {
  playbackOf(ctx).start();
}
