import type { CoverImages } from '../../integrations/coverart/client.js';
import { artistPicture, DeezerClient, type DeezerArtist, type DeezerTrack } from '../../integrations/deezer/client.js';
import { IntegrationError } from '../../integrations/errors.js';
import { LastFmClient, type LastFmImage, type LastFmSimilarArtist, type LastFmTopTrack } from '../../integrations/lastfm/client.js';
import { NotConfiguredError, NotFoundError } from '../errors.js';
import { type MetadataService } from './service.js';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'config'> & { settings: SettingsStore; enrichment: EnrichmentService; metadata: MetadataService };

const DAY = 86_400_000;
/** Similar artists, biographies and top tracks change slowly; pictures and previews a little faster. */
export const ENRICHMENT_KINDS = {
  'lastfm-info': 14 * DAY,
  'lastfm-similar': 14 * DAY,
  'lastfm-top-tracks': 7 * DAY,
  /** Keyed by release-group MBID: Last.fm's album page (wiki summary, tags, link). */
  'lastfm-album': 14 * DAY,
  'deezer-match': 30 * DAY,
  'deezer-artist': 7 * DAY,
  'deezer-top': 7 * DAY,
} as const;
export type EnrichmentKind = keyof typeof ENRICHMENT_KINDS;

/** Similar artists kept per artist (routes slice to their limit). */
const SIMILAR_KEPT = 100;
const TOP_TRACKS_KEPT = 50;
const PREVIEWS_KEPT = 25;

export interface ArtistInfoDocument {
  name: string;
  url: string;
  bio: { summary: string; content: string };
  tags: string[];
  listeners: number;
  images: LastFmImage[];
}
export interface AlbumInfoDocument {
  name: string;
  artist: string;
  url: string;
  wiki: { summary: string; content: string };
  tags: string[];
  images: LastFmImage[];
}
/** The Cover Art Archive's image list of a release group, as the metadata cache keeps it (kind `cover`). */
export type CoverDocument = CoverImages;
export type SimilarDocument = Pick<LastFmSimilarArtist, 'name' | 'mbid' | 'match' | 'url' | 'image'>[];
export type TopTracksDocument = Pick<LastFmTopTrack, 'name' | 'mbid' | 'playcount'>[];
export type DeezerTopDocument = Pick<DeezerTrack, 'id' | 'title' | 'duration' | 'rank' | 'preview' | 'link' | 'album'>[];

const LASTFM_SETTING = 'integrations.lastfm.apiKey';

/** A lookup upstream that found nothing is a cached "none", not an error. */
async function orNull<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof IntegrationError && err.kind === 'not_found') return null;
    throw err;
  }
}
async function optional<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

const fold = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/**
 * Artist enrichment beside MusicBrainz: Last.fm (biography, tags, similar artists, top tracks; only
 * with an API key) and Deezer (picture, top tracks with previews). Every document lives in the
 * metadata cache under its own kind, keyed by the artist's resolved MBID (after a musicbrainzId
 * override) or by the Deezer id, so changing an override makes later lookups use the new match.
 */
export class EnrichmentService {
  private readonly metadata: MetadataService;
  private lastfm: { key: string; client: LastFmClient } | null = null;
  private readonly deezer: DeezerClient;

  constructor(private readonly ctx: Deps) {
    this.metadata = ctx.metadata;
    const spacing = ctx.config.upstreams.spacingMs;
    this.deezer = new DeezerClient({
      baseUrl: ctx.config.upstreams.deezer,
      userAgent: this.metadata.userAgent(),
      ...(spacing !== null && { spacingMs: spacing }),
    });
    const lastfm = () => this.lastfmUnavailable();
    const always = () => null;
    const sources: Record<EnrichmentKind, [() => Error | null, (key: string, signal?: AbortSignal) => Promise<unknown>]> = {
      'lastfm-info': [lastfm, (key, signal) => this.fetchInfo(key, signal)],
      'lastfm-similar': [lastfm, (key, signal) => this.fetchSimilar(key, signal)],
      'lastfm-top-tracks': [lastfm, (key, signal) => this.fetchTopTracks(key, signal)],
      'lastfm-album': [lastfm, (key, signal) => this.fetchAlbumInfo(key, signal)],
      'deezer-match': [always, (key, signal) => this.fetchDeezerMatch(key, signal)],
      'deezer-artist': [always, (key, signal) => orNull(this.deezer.artist(key, signal))],
      'deezer-top': [always, (key, signal) => this.fetchDeezerTop(key, signal)],
    };
    for (const [kind, [unavailable, fetch]] of Object.entries(sources))
      this.metadata.defineKind(kind, { freshMs: ENRICHMENT_KINDS[kind as EnrichmentKind], unavailable, fetch });
  }

  /** Why Last.fm cannot be asked (no API key, or switched off), or null. */
  lastfmUnavailable(): NotConfiguredError | null {
    const s = this.ctx.settings.get().integrations.lastfm;
    if (!s.apiKey) return new NotConfiguredError(LASTFM_SETTING, `Last.fm needs an API key: set ${LASTFM_SETTING} in Settings`);
    if (!s.enabled) return new NotConfiguredError('integrations.lastfm.enabled', 'Last.fm is switched off in Settings (integrations.lastfm.enabled)');
    return null;
  }

  private lastfmClient(): LastFmClient {
    const apiKey = this.ctx.settings.get().integrations.lastfm.apiKey;
    const key = `${apiKey} ${this.metadata.userAgent()}`;
    if (!this.lastfm || this.lastfm.key !== key) {
      const spacing = this.ctx.config.upstreams.spacingMs;
      this.lastfm = {
        key,
        client: new LastFmClient({ baseUrl: this.ctx.config.upstreams.lastfm, apiKey, userAgent: this.metadata.userAgent(), ...(spacing !== null && { spacingMs: spacing }) }),
      };
    }
    return this.lastfm.client;
  }

  /** The MusicBrainz name of a (resolved) artist MBID: Last.fm and Deezer are asked by name. */
  private async nameOf(mbid: string): Promise<string> {
    return (await this.metadata.artist(mbid)).artist.name;
  }

  private async fetchInfo(mbid: string, signal?: AbortSignal): Promise<ArtistInfoDocument | null> {
    const ref = { name: await this.nameOf(mbid) };
    const info = await orNull(this.lastfmClient().artistInfo(ref, signal));
    if (!info) return null;
    const tags = await orNull(this.lastfmClient().topTags(ref, signal));
    return {
      name: info.name,
      url: info.url,
      bio: { summary: info.bio?.summary ?? '', content: info.bio?.content ?? '' },
      tags: (tags ?? info.tags?.tag ?? []).map((t) => t.name).slice(0, 20),
      listeners: info.stats?.listeners ?? 0,
      images: info.image,
    };
  }

  /** Last.fm's page of a release group, asked by the MusicBrainz artist credit and title. */
  private async fetchAlbumInfo(releaseGroupMbid: string, signal?: AbortSignal): Promise<AlbumInfoDocument | null> {
    const group = await optional(this.metadata.releaseGroup(releaseGroupMbid));
    if (!group) return null;
    const artist = group['artist-credit'].map((c) => c.name + (c.joinphrase ?? '')).join('').trim();
    if (!artist) return null;
    const info = await orNull(this.lastfmClient().albumInfo({ artist, album: group.title }, signal));
    if (!info) return null;
    return {
      name: info.name,
      artist: info.artist,
      url: info.url,
      wiki: { summary: info.wiki?.summary ?? '', content: info.wiki?.content ?? '' },
      tags: (info.tags?.tag ?? []).map((t) => t.name).slice(0, 20),
      images: info.image,
    };
  }

  private async fetchSimilar(mbid: string, signal?: AbortSignal): Promise<SimilarDocument | null> {
    const list = await orNull(this.lastfmClient().similar({ name: await this.nameOf(mbid) }, SIMILAR_KEPT, signal));
    return list?.map(({ name, mbid: id, match, url, image }) => ({ name, mbid: id, match, url, image })) ?? null;
  }

  private async fetchTopTracks(mbid: string, signal?: AbortSignal): Promise<TopTracksDocument | null> {
    const ref = { name: await this.nameOf(mbid) };
    const tracks: TopTracksDocument = [];
    for (let page = 1; tracks.length < TOP_TRACKS_KEPT; page++) {
      const answer = await orNull(this.lastfmClient().topTracks(ref, Math.min(50, TOP_TRACKS_KEPT), page, signal));
      if (!answer) return page === 1 ? null : tracks;
      tracks.push(...answer.tracks.map(({ name, mbid: id, playcount }) => ({ name, mbid: id, playcount })));
      if (page >= answer.totalPages || answer.tracks.length === 0) break;
    }
    return tracks.slice(0, TOP_TRACKS_KEPT);
  }

  /** The Deezer artist named like the MusicBrainz one: an exact (folded) name first, else Deezer's best hit. */
  private async fetchDeezerMatch(mbid: string, signal?: AbortSignal): Promise<DeezerArtist | null> {
    const name = await this.nameOf(mbid);
    const hits = (await this.deezer.searchArtists(name, 10, 0, signal)).data;
    return hits.find((a) => fold(a.name) === fold(name)) ?? hits[0] ?? null;
  }

  private async fetchDeezerTop(deezerId: string, signal?: AbortSignal): Promise<DeezerTopDocument | null> {
    const page = await orNull(this.deezer.topTracks(deezerId, PREVIEWS_KEPT, 0, signal));
    return page?.data.map(({ id, title, duration, rank, preview, link, album }) => ({ id, title, duration, rank, preview, link, album })) ?? null;
  }

  // ---- lookups used by the routes (waiting on upstream when cold) ----

  private requireLastfm(): void {
    const refused = this.lastfmUnavailable();
    if (refused) throw refused;
  }

  async info(mbid: string): Promise<ArtistInfoDocument | null> {
    this.requireLastfm();
    return optional(this.metadata.document('lastfm-info', this.metadata.resolveArtistMbid(mbid), 'Artist not found on Last.fm') as Promise<ArtistInfoDocument>);
  }

  async similar(mbid: string): Promise<SimilarDocument> {
    this.requireLastfm();
    return (await optional(this.metadata.document('lastfm-similar', this.metadata.resolveArtistMbid(mbid), 'Artist not found on Last.fm') as Promise<SimilarDocument>)) ?? [];
  }

  async topTracks(mbid: string): Promise<TopTracksDocument> {
    this.requireLastfm();
    return (await optional(this.metadata.document('lastfm-top-tracks', this.metadata.resolveArtistMbid(mbid), 'Artist not found on Last.fm') as Promise<TopTracksDocument>)) ?? [];
  }

  /** Where the Deezer artist comes from: the override, or the cached name match of the resolved MBID. */
  private deezerRef(mbid: string): { kind: 'deezer-artist' | 'deezer-match'; key: string; overridden: boolean } {
    const override = this.metadata.cache.overrides(mbid).deezerArtistId;
    return override ? { kind: 'deezer-artist', key: override, overridden: true } : { kind: 'deezer-match', key: this.metadata.resolveArtistMbid(mbid), overridden: false };
  }

  /** The Deezer artist of an MBID (null when Deezer has none); `refresh` asks Deezer again now. */
  async deezerArtist(mbid: string, refresh = false): Promise<{ artist: DeezerArtist | null; overridden: boolean }> {
    const ref = this.deezerRef(mbid);
    if (refresh) await this.metadata.fetchAndStore(ref.kind, ref.key);
    const artist = (await optional(this.metadata.document(ref.kind, ref.key, 'Artist not found on Deezer') as Promise<DeezerArtist>)) ?? null;
    return { artist, overridden: ref.overridden };
  }

  async deezerTop(mbid: string): Promise<{ artist: DeezerArtist | null; tracks: DeezerTopDocument }> {
    const { artist } = await this.deezerArtist(mbid);
    if (!artist) return { artist: null, tracks: [] };
    const tracks = (await optional(this.metadata.document('deezer-top', String(artist.id), 'Artist not found on Deezer') as Promise<DeezerTopDocument>)) ?? [];
    return { artist, tracks };
  }

  // ---- cache-only lookups for Subsonic players (never waiting on upstream) ----

  /** What the cache has now (undefined: not yet, a refresh is queued; null: upstream has none). */
  cached<T>(kind: EnrichmentKind | 'cover', key: string): T | null | undefined {
    if (kind.startsWith('lastfm-') && this.lastfmUnavailable()) return undefined;
    return this.metadata.peek(kind, key) as T | null | undefined;
  }

  cachedDeezerArtist(mbid: string): DeezerArtist | null | undefined {
    const ref = this.deezerRef(mbid);
    // The name match needs the MusicBrainz artist first; its refresh job fetches both in turn.
    return this.cached<DeezerArtist>(ref.kind, ref.key);
  }

  resolve(mbid: string): string {
    return this.metadata.resolveArtistMbid(mbid);
  }
}

export { artistPicture };

/** Defines the enrichment kinds before the refresh queue runs its first job. */
export function startEnrichment(ctx: Deps): void {
  ctx.enrichment;
}
