import { geoClients, resolveLocation, type GeoClients, type GeoPlace } from '../../integrations/geo/client.js';
import { KoitoClient } from '../../integrations/koito/client.js';
import { LastFmClient } from '../../integrations/lastfm/client.js';
import { ListenBrainzClient } from '../../integrations/listenbrainz/client.js';
import { fetchNewsFeed, type NewsFeed } from '../../integrations/news/feed.js';
import { activeNewsFeeds, feedFetchUrl, type NewsSource } from '../../integrations/news/sources.js';
import { NewsApiClient } from '../../integrations/newsapi/client.js';
import { TicketmasterClient } from '../../integrations/ticketmaster/client.js';
import type { Role } from '../auth/permissions.js';
import { NotConfiguredError } from '../errors.js';
import { allowedPrivateTargets, userEnteredTargets, type Deps as NetworkPrivateTargetsDeps } from '../network/privateTargets.js';
import type { Kernel } from '../../kernel.js';
import type { MetadataService } from '../metadata/service.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'config'>
  & {
    settings: SettingsStore;
    metadata: MetadataService;
  }
  & NetworkPrivateTargetsDeps;

/**
 * The discovery, news and inbox providers built from the configuration (base URLs, spacing) and the
 * settings (keys), rebuilt when a key changes. A provider that needs a key the settings lack answers
 * a NotConfiguredError naming the setting (409 NOT_CONFIGURED), never a half-working client.
 */
export class DiscoveryProviders {
  private cache = new Map<string, { key: string; client: unknown }>();

  constructor(private readonly ctx: Deps) {}

  /** The User-Agent every public service sees (with the administrator's MusicBrainz contact). */
  userAgent(): string {
    return this.ctx.metadata.userAgent();
  }

  private spacing(): { spacingMs?: number } {
    const s = this.ctx.config.upstreams.spacingMs;
    return s === null ? {} : { spacingMs: s };
  }

  private cached<T>(name: string, key: string, build: () => T): T {
    const hit = this.cache.get(name);
    if (hit && hit.key === key) return hit.client as T;
    const client = build();
    this.cache.set(name, { key, client });
    return client;
  }

  /** Why Last.fm cannot be asked (no key, or switched off), or null. */
  lastfmUnavailable(): NotConfiguredError | null {
    const s = this.ctx.settings.get().integrations.lastfm;
    if (!s.apiKey) return new NotConfiguredError('integrations.lastfm.apiKey', 'Last.fm needs an API key: set integrations.lastfm.apiKey in Settings');
    if (!s.enabled) return new NotConfiguredError('integrations.lastfm.enabled', 'Last.fm is switched off in Settings (integrations.lastfm.enabled)');
    return null;
  }

  /** The Last.fm client; throws NotConfiguredError without a key. */
  lastfm(): LastFmClient {
    const unavailable = this.lastfmUnavailable();
    if (unavailable) throw unavailable;
    const apiKey = this.ctx.settings.get().integrations.lastfm.apiKey;
    const ua = this.userAgent();
    return this.cached('lastfm', `${apiKey} ${ua}`, () => new LastFmClient({ baseUrl: this.ctx.config.upstreams.lastfm, apiKey, userAgent: ua, ...this.spacing() }));
  }

  /** ListenBrainz statistics are public; a user's token is only needed for private data. */
  listenbrainz(token?: string): ListenBrainzClient {
    const ua = this.userAgent();
    return this.cached(`listenbrainz ${token ?? ''}`, ua, () => new ListenBrainzClient({ baseUrl: this.ctx.config.upstreams.listenbrainz, userAgent: ua, ...(token && { token }), ...this.spacing() }));
  }

  /**
   * A user's Koito server (their listening-history URL): LAN and loopback addresses only when the
   * user is an administrator or an administrator allowed the host (network/privateTargets.ts).
   */
  koito(baseUrl: string, role: Role, token?: string): KoitoClient {
    return new KoitoClient({ baseUrl, userAgent: this.userAgent(), ...(token && { token }), allowPrivateTargets: userEnteredTargets(this.ctx, role) });
  }

  ticketmasterUnavailable(): NotConfiguredError | null {
    const s = this.ctx.settings.get().integrations.ticketmaster;
    if (!s.apiKey) return new NotConfiguredError('integrations.ticketmaster.apiKey', 'Nearby shows need a Ticketmaster API key: set integrations.ticketmaster.apiKey in Settings');
    if (!s.enabled) return new NotConfiguredError('integrations.ticketmaster.enabled', 'Ticketmaster is switched off in Settings (integrations.ticketmaster.enabled)');
    return null;
  }

  /** The Ticketmaster client; throws NotConfiguredError without a key. */
  ticketmaster(): TicketmasterClient {
    const unavailable = this.ticketmasterUnavailable();
    if (unavailable) throw unavailable;
    const apiKey = this.ctx.settings.get().integrations.ticketmaster.apiKey;
    const ua = this.userAgent();
    return this.cached('ticketmaster', `${apiKey} ${ua}`, () => new TicketmasterClient({ baseUrl: this.ctx.config.upstreams.ticketmaster, apiKey, userAgent: ua, now: () => this.ctx.clock.now(), ...this.spacing() }));
  }

  geo(): GeoClients {
    const up = this.ctx.config.upstreams;
    const ua = this.userAgent();
    return this.cached('geo', ua, () => geoClients({ zippopotam: up.zippopotam, nominatim: up.geocoder, ipapi: up.ipapi }, ua, up.spacingMs));
  }

  /** A place from what the user typed (coordinates, ZIP, postcode, city) or, with nothing, the server's location. */
  locate(input: string | null | undefined, options: { countryCode?: string; signal?: AbortSignal } = {}): Promise<GeoPlace | null> {
    return resolveLocation(input, this.geo(), options);
  }

  /** The NewsAPI client, or null when no key is set or news is switched off (NewsAPI is optional). */
  newsapi(): NewsApiClient | null {
    const s = this.ctx.settings.get().integrations.news;
    if (!s.enabled || !s.apiKey) return null;
    const ua = this.userAgent();
    // No retries: every request is paid for from the shared daily budget before it is made (news/budget.ts).
    return this.cached('newsapi', `${s.apiKey} ${ua}`, () => new NewsApiClient({ baseUrl: this.ctx.config.upstreams.newsapi, apiKey: s.apiKey, userAgent: ua, retries: 0, ...this.spacing() }));
  }

  /** The feeds to read now: built-in ones not disabled, then custom ones; none when news is switched off. */
  newsFeeds(): NewsSource[] {
    const s = this.ctx.settings.get().integrations.news;
    return s.enabled ? activeNewsFeeds(s) : [];
  }

  /** One feed through the private-address guard with the ALLOW_PRIVATE_TARGETS allow-list (a built-in one from TONEARM_NEWS_FEEDS_URL when set). */
  fetchFeed(url: string, signal?: AbortSignal): Promise<NewsFeed & { url: string }> {
    return fetchNewsFeed(feedFetchUrl(url, this.ctx.config.upstreams.newsFeeds), { allowPrivateTargets: allowedPrivateTargets(this.ctx), userAgent: this.userAgent(), ...(signal && { signal }) });
  }
}

