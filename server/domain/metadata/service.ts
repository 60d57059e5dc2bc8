import { metadataCacheRepository, type MetadataCacheRepository } from '../../db/metadataCache.js';
import { CoverArtClient, type CoverImages } from '../../integrations/coverart/client.js';
import { IntegrationError } from '../../integrations/errors.js';
import { MetadataProviderClient } from '../../integrations/metadata/client.js';
import { artistDocument, releaseDocuments, releaseGroupDocument } from '../../integrations/metadata/convert.js';
import { MusicBrainzClient } from '../../integrations/musicbrainz/client.js';
import type { MbArtist, MbRelease, MbReleaseGroup } from '../../integrations/musicbrainz/schemas.js';
import { NotFoundError } from '../errors.js';
import type { Kernel } from '../../kernel.js';
import type { Broadcaster } from '../events.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'appVersion' | 'clock' | 'config' | 'db' | 'jobs' | 'scheduler'>
  & {
    hub: Broadcaster;
    settings: SettingsStore;
    metadata: MetadataService;
  };

/** How long a cached document is fresh; older ones are served and refreshed in the background. */
const FRESH_MS: Record<MetadataKind, number> = {
  artist: 7 * 86_400_000,
  'appears-on': 7 * 86_400_000,
  'release-group': 30 * 86_400_000,
  release: 30 * 86_400_000,
  cover: 30 * 86_400_000,
};
/** A resource upstream does not have is asked for again after this long. */
const MISSING_MS = 86_400_000;
/** Release groups read per artist (MusicBrainz pages by 100). */
const MAX_RELEASE_GROUPS = 500;
/** Recordings scanned for "appears on" (pages of 100, as the reference service does). */
const MAX_APPEARANCE_RECORDINGS = 1000;
/** After the metadata provider fails, MusicBrainz answers alone this long before the provider is tried again. */
export const PROVIDER_RETRY_MS = 60_000;
/** The name of the Lidarr-format metadata provider in health's `metadataProviders` (decisions §7). */
export const PROVIDER_NAME = 'brainzmash';

export type MetadataKind = 'artist' | 'appears-on' | 'release-group' | 'release' | 'cover';
export const REFRESH_QUEUE = 'metadata-refresh';

/**
 * A further kind of cached document (enrichment from Deezer, Last.fm): its freshness and how to
 * fetch it. It shares the cache, the in-flight dedupe and the background refresh of the built-in kinds.
 */
export interface KindSource {
  freshMs: number;
  /** Null when the source can be asked; else why not (a cold document then fails with it). */
  unavailable(): Error | null;
  /** The document, or null when upstream has no such resource. */
  fetch(key: string, signal?: AbortSignal): Promise<unknown>;
}

export interface ArtistDocument {
  artist: MbArtist;
  releaseGroups: MbReleaseGroup[];
}
export interface ReleaseGroupDocument {
  group: MbReleaseGroup;
}

/**
 * Artist and release metadata from MusicBrainz and the Cover Art Archive, through a SQLite cache:
 * fresh documents are served as they are, stale ones are served and refreshed by a background job
 * (the `library` channel hears `release_metadata_refreshed`), and an upstream outage still serves
 * whatever was cached; only a document never fetched fails (502 UPSTREAM_UNAVAILABLE).
 */
export class MetadataService {
  readonly cache: MetadataCacheRepository;
  private mb: { key: string; client: MusicBrainzClient } | null = null;
  private readonly coverArt: CoverArtClient;
  /** One upstream fetch per document however many pages ask for it at once. */
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private readonly sources = new Map<string, KindSource>();
  /** What health reports as `metadataProviders.musicbrainz` (decisions §7). */
  private readonly providerState = newProviderState();
  /** The same for the Lidarr-format provider, plus whether MusicBrainz stands in for it now. */
  private readonly skyState = { ...newProviderState(), failoverActive: false, retryAt: 0 };
  private sky: { key: string; client: MetadataProviderClient } | null = null;

  constructor(private readonly ctx: Deps) {
    this.cache = metadataCacheRepository(ctx.db);
    this.coverArt = new CoverArtClient({
      baseUrl: ctx.config.upstreams.coverart,
      userAgent: this.userAgent(),
      spacingMs: ctx.config.upstreams.spacingMs ?? 100,
    });
  }

  get enabled(): boolean {
    return this.ctx.settings.get().integrations.musicbrainz.enabled;
  }

  userAgent(): string {
    const email = this.ctx.settings.get().integrations.musicbrainz.email;
    return `Tonearm/${this.ctx.appVersion} ( ${email || 'self-hosted Tonearm server'} )`;
  }

  /** The MusicBrainz client, rebuilt when the contact (and so the User-Agent) changes. */
  musicbrainz(): MusicBrainzClient {
    const ua = this.userAgent();
    if (!this.mb || this.mb.key !== ua)
      this.mb = {
        key: ua,
        client: new MusicBrainzClient({
          baseUrl: this.ctx.config.upstreams.musicbrainz,
          userAgent: ua,
          ...(this.ctx.config.upstreams.spacingMs !== null && { spacingMs: this.ctx.config.upstreams.spacingMs }),
        }),
      };
    return this.mb.client;
  }

  /** The Lidarr-format provider's base URL when it is configured and switched on, else null. */
  providerBaseUrl(): string | null {
    const setting = this.ctx.settings.get().integrations.metadata;
    if (!setting.enabled) return null;
    return setting.baseUrl || this.ctx.config.upstreams.metadata || null;
  }

  /** The Lidarr-format metadata provider's client, or null when none is configured. */
  provider(): MetadataProviderClient | null {
    const baseUrl = this.providerBaseUrl();
    if (!baseUrl) return (this.sky = null);
    const key = `${baseUrl} ${this.ctx.appVersion}`;
    if (!this.sky || this.sky.key !== key) {
      this.sky = {
        key,
        client: new MetadataProviderClient({
          baseUrl,
          userAgent: `Tonearm/${this.ctx.appVersion}`,
          ...(this.ctx.config.upstreams.spacingMs !== null && { spacingMs: this.ctx.config.upstreams.spacingMs }),
        }),
      };
      // A different server starts with a clean record.
      Object.assign(this.skyState, newProviderState(), { failoverActive: false, retryAt: 0 });
    }
    return this.sky.client;
  }

  /** The `metadataProviders` entries of the detailed health answer (each configured provider, before first use too). */
  providerHealth() {
    const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
    const times = (s: ReturnType<typeof newProviderState>) => ({
      lastCheckedAt: iso(s.lastCheckedAt),
      lastSuccessAt: iso(s.lastSuccessAt),
      lastFailureAt: iso(s.lastFailureAt),
      lastFailureReason: s.lastFailureReason,
    });
    const entries: Record<string, { activeBaseUrl: string | null; configuredProvider: string | null; failoverActive: boolean } & ReturnType<typeof times>> = {};
    const sky = this.provider();
    entries[PROVIDER_NAME] = sky
      ? {
          // During a failover the pages come from MusicBrainz.
          activeBaseUrl: this.skyState.failoverActive && this.enabled ? this.ctx.config.upstreams.musicbrainz : sky.baseUrl,
          configuredProvider: PROVIDER_NAME,
          failoverActive: this.skyState.failoverActive,
          ...times(this.skyState),
        }
      : // Not configured or switched off: the entry clients read is there, with nothing to report.
        { activeBaseUrl: null, configuredProvider: null, failoverActive: false, ...times(newProviderState()) };
    if (this.enabled)
      entries.musicbrainz = { activeBaseUrl: this.ctx.config.upstreams.musicbrainz, configuredProvider: 'musicbrainz', failoverActive: false, ...times(this.providerState) };
    return entries;
  }

  registerRefreshQueue(): void {
    this.ctx.jobs.register<{ kind: string; key: string }>(REFRESH_QUEUE, {
      concurrency: 2,
      maxAttempts: 4,
      backoff: { baseMs: 60_000, maxMs: 6 * 3600_000 },
      handler: async ({ payload, signal }) => {
        await this.fetchAndStore(payload.kind, payload.key, signal);
        this.ctx.hub.broadcast('library', 'release_metadata_refreshed', { kind: payload.kind, mbid: payload.key });
      },
    });
  }

  /** The artist with its release groups; throws NotFoundError when MusicBrainz has no such artist. */
  artist(mbid: string): Promise<ArtistDocument> {
    return this.document('artist', this.resolveArtistMbid(mbid), 'Artist not found') as Promise<ArtistDocument>;
  }

  appearsOn(mbid: string): Promise<MbReleaseGroup[]> {
    return this.document('appears-on', this.resolveArtistMbid(mbid), 'Artist not found') as Promise<MbReleaseGroup[]>;
  }

  releaseGroup(mbid: string): Promise<MbReleaseGroup> {
    return this.document('release-group', mbid, 'Release group not found') as Promise<MbReleaseGroup>;
  }

  release(mbid: string): Promise<MbRelease> {
    return this.document('release', mbid, 'Release not found') as Promise<MbRelease>;
  }

  /** Cover images of a release group; an empty list when the archive has none. */
  async cover(mbid: string, refresh = false): Promise<CoverImages> {
    if (refresh) await this.fetchAndStore('cover', mbid);
    return ((await this.document('cover', mbid, 'Cover not found').catch((err: unknown) => {
      if (err instanceof NotFoundError) return { images: [] };
      throw err;
    })) ?? { images: [] }) as CoverImages;
  }

  /** Overrides replace the MBID used for an artist's lookups (a wrong automatic match). */
  resolveArtistMbid(mbid: string): string {
    return this.cache.overrides(mbid).musicbrainzId ?? mbid;
  }

  /** Adds a kind of document served through this cache (see KindSource). */
  defineKind(kind: string, source: KindSource): void {
    this.sources.set(kind, source);
  }

  private unavailable(kind: string): Error | null {
    const source = this.sources.get(kind);
    if (source) return source.unavailable();
    if (this.enabled || ((kind === 'artist' || kind === 'release-group') && this.provider())) return null;
    return new IntegrationError('musicbrainz', 'unreachable', 'MusicBrainz lookups are switched off in Settings (integrations.musicbrainz.enabled)');
  }

  /** Queues a background refresh of a document (once however often it is asked for). */
  private enqueueRefresh(kind: string, key: string): void {
    if (this.unavailable(kind) === null) this.ctx.jobs.enqueue(REFRESH_QUEUE, { kind, key }, { dedupeKey: `${kind}:${key}`, priority: 10 });
  }

  private isStale(kind: string, cached: { found: boolean; fetchedAt: number }): boolean {
    const age = this.ctx.clock.now() - cached.fetchedAt;
    const fresh = this.sources.get(kind)?.freshMs ?? FRESH_MS[kind as MetadataKind];
    return cached.found ? age > fresh : age > MISSING_MS;
  }

  /**
   * A cached document without waiting on upstream: the payload (null when upstream has none), or
   * undefined when it was never fetched. Missing and stale documents are refreshed in the background.
   */
  peek(kind: string, key: string): unknown {
    const cached = this.cache.get(kind, key);
    if (!cached || this.isStale(kind, cached)) this.enqueueRefresh(kind, key);
    return cached ? (cached.found ? cached.payload : null) : undefined;
  }

  /** A document from the cache (stale ones refreshed in the background) or fetched now; NotFoundError when upstream has none. */
  async document(kind: string, key: string, missing: string): Promise<unknown> {
    const cached = this.cache.get(kind, key);
    if (cached) {
      if (this.isStale(kind, cached)) this.enqueueRefresh(kind, key);
      if (!cached.found) throw new NotFoundError(missing);
      return cached.payload;
    }
    const refused = this.unavailable(kind);
    if (refused) throw refused;
    const payload = await this.fetchAndStore(kind, key);
    if (payload === null) throw new NotFoundError(missing);
    return payload;
  }

  /** Fetches one document upstream and stores it (null when upstream has no such resource). */
  fetchAndStore(kind: string, key: string, signal?: AbortSignal): Promise<unknown> {
    const id = `${kind}:${key}`;
    let pending = this.inFlight.get(id);
    if (!pending) {
      pending = (async () => {
        let payload: unknown;
        const source = this.sources.get(kind);
        if (source) {
          payload = await source.fetch(key, signal);
          this.cache.put(kind, key, payload, this.ctx.clock.now());
          return payload;
        }
        const fromProvider = await this.fetchFromProvider(kind as MetadataKind, key, signal);
        if (fromProvider !== undefined) {
          this.store(kind, key, fromProvider);
          return fromProvider;
        }
        const state = this.providerState;
        state.lastCheckedAt = this.ctx.clock.now();
        try {
          payload = await this.fetch(kind as MetadataKind, key, signal);
          state.lastSuccessAt = this.ctx.clock.now();
        } catch (err) {
          const missing = err instanceof IntegrationError && (err.kind === 'not_found' || (err.kind === 'bad_request' && err.status === 400));
          if (!missing) {
            state.lastFailureAt = this.ctx.clock.now();
            state.lastFailureReason = err instanceof Error ? err.message : String(err);
            throw err;
          }
          state.lastSuccessAt = this.ctx.clock.now();
          payload = null;
        }
        this.store(kind, key, payload);
        return payload;
      })().finally(() => this.inFlight.delete(id));
      this.inFlight.set(id, pending);
    }
    return pending;
  }

  private store(kind: string, key: string, payload: unknown): void {
    this.cache.put(kind, key, payload, this.ctx.clock.now());
    if (kind === 'artist' && payload) {
      const doc = payload as ArtistDocument;
      this.cache.setArtistReleaseGroups(
        key,
        doc.releaseGroups.map((g) => ({
          mbid: g.id,
          title: g.title,
          primaryType: g['primary-type'] ?? null,
          secondaryTypes: g['secondary-types'] ?? [],
          date: g['first-release-date'] || null,
        })),
      );
    }
  }

  /**
   * Artists and release groups from the Lidarr-format provider when one is configured: its document
   * in MusicBrainz's shapes, or undefined when MusicBrainz must answer instead (no provider, a kind
   * it does not serve, a resource it lacks, or an outage: timeouts, refused connections and 5xx
   * start a failover during which MusicBrainz answers alone until PROVIDER_RETRY_MS have passed).
   * An album's releases, tracks included, are cached with it, so its track list needs no other call.
   */
  private async fetchFromProvider(kind: MetadataKind, key: string, signal?: AbortSignal): Promise<unknown> {
    if (kind !== 'artist' && kind !== 'release-group') return undefined;
    const sky = this.provider();
    if (!sky) return undefined;
    const state = this.skyState;
    const now = this.ctx.clock.now();
    if (state.failoverActive && now < state.retryAt && this.enabled) return undefined;
    state.lastCheckedAt = now;
    try {
      let doc: unknown;
      if (kind === 'artist') doc = artistDocument(await sky.artist(key, signal));
      else {
        const album = await sky.album(key, signal);
        for (const release of releaseDocuments(album)) this.cache.put('release', release.id, release, this.ctx.clock.now());
        doc = releaseGroupDocument(album);
      }
      state.lastSuccessAt = this.ctx.clock.now();
      state.failoverActive = false;
      return doc;
    } catch (err) {
      if (signal?.aborted) throw err;
      if (err instanceof IntegrationError && (err.kind === 'not_found' || err.kind === 'bad_request')) {
        // The provider answers, but lags MusicBrainz for new or merged entries: MusicBrainz decides.
        state.lastSuccessAt = this.ctx.clock.now();
        if (!this.enabled) return null;
        return undefined;
      }
      state.lastFailureAt = this.ctx.clock.now();
      state.lastFailureReason = err instanceof Error ? err.message : String(err);
      state.failoverActive = true;
      state.retryAt = state.lastFailureAt + PROVIDER_RETRY_MS;
      if (!this.enabled) throw err;
      return undefined;
    }
  }

  private async fetch(kind: MetadataKind, key: string, signal?: AbortSignal): Promise<unknown> {
    const mb = this.musicbrainz();
    switch (kind) {
      case 'artist': {
        const artist = await mb.artist(key, signal);
        const releaseGroups: MbReleaseGroup[] = [];
        for (let offset = 0; offset < MAX_RELEASE_GROUPS; offset += 100) {
          const page = await mb.browseReleaseGroups(key, 100, offset, signal);
          releaseGroups.push(...page['release-groups']);
          if (offset + 100 >= page['release-group-count']) break;
        }
        return { artist, releaseGroups } satisfies ArtistDocument;
      }
      case 'appears-on':
        return this.fetchAppearances(mb, key, signal);
      case 'release-group':
        return mb.releaseGroup(key, signal);
      case 'release':
        return mb.release(key, signal);
      case 'cover':
        return this.coverArt.releaseGroup(key, signal);
    }
  }

  /** Release groups of other artists that include a recording credited to this one. */
  private async fetchAppearances(mb: MusicBrainzClient, artistMbid: string, signal?: AbortSignal): Promise<MbReleaseGroup[]> {
    const groups = new Map<string, MbReleaseGroup>();
    for (let offset = 0; offset < MAX_APPEARANCE_RECORDINGS; offset += 100) {
      const page = await mb.recordingsByArtist(artistMbid, 100, offset, signal);
      for (const recording of page.recordings)
        for (const release of recording.releases) {
          const group = release['release-group'];
          if (!group || groups.has(group.id)) continue;
          const primary = (group['artist-credit'].length ? group['artist-credit'] : release['artist-credit'] ?? []).map((c) => c.artist.id);
          if (primary.includes(artistMbid)) continue;
          groups.set(group.id, { ...group, 'artist-credit': group['artist-credit'].length ? group['artist-credit'] : release['artist-credit'] ?? [] });
        }
      if (offset + 100 >= page.count) break;
    }
    return [...groups.values()];
  }
}

function newProviderState() {
  return { lastCheckedAt: null as number | null, lastSuccessAt: null as number | null, lastFailureAt: null as number | null, lastFailureReason: null as string | null };
}

/** Library artists whose metadata the daily task refreshes per run (MusicBrainz allows 1 request/s). */
const DAILY_ARTIST_REFRESHES = 300;

/** Registers the refresh queue, the daily refresh task and the health fields. */
export function startMetadata(ctx: Deps): void {
  const metadata = ctx.metadata;
  metadata.registerRefreshQueue();
  ctx.scheduler.define({
    name: 'release-metadata-refresh',
    every: 24 * 3600_000,
    priority: -5,
    handler: () => {
      if (!metadata.enabled && !metadata.provider()) return;
      const before = ctx.clock.now() - FRESH_MS.artist;
      for (const mbid of metadata.cache.libraryArtistsToRefresh(before, DAILY_ARTIST_REFRESHES))
        ctx.jobs.enqueue(REFRESH_QUEUE, { kind: 'artist', key: mbid }, { dedupeKey: `artist:${mbid}`, priority: 20 });
    },
  });
}

/** The metadata block of the detailed health answer. */
export function metadataHealth(ctx: { metadata: MetadataService }) {
  const metadata = ctx.metadata;
  return {
    musicbrainzConfigured: metadata.enabled,
    metadataConfigured: metadata.providerBaseUrl() !== null,
    metadataProviders: metadata.providerHealth(),
  };
}
