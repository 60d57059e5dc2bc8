import { ItunesClient } from '../../integrations/apple/itunes.js';
import { fetchBandcampPage } from '../../integrations/bandcamp/page.js';
import { DeezerClient } from '../../integrations/deezer/client.js';
import { IntegrationError } from '../../integrations/errors.js';
import { OEmbedClient, type OEmbed } from '../../integrations/oembed/client.js';
import { SpotifyClient } from '../../integrations/spotify/client.js';
import { NotConfiguredError, NotFoundError, ValidationError } from '../errors.js';
import { allowedPrivateTargets, type Deps as NetworkPrivateTargetsDeps } from '../network/privateTargets.js';
import { parseLink, type LinkKind, type LinkSource, type ParsedLink } from './linkParse.js';
import { matchNames, type MatchedNames, type Deps as SearchMatchDeps } from './match.js';
import type { Kernel } from '../../kernel.js';
import type { MetadataService } from '../metadata/service.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'config'>
  & {
    settings: SettingsStore;
    metadata: MetadataService;
    spotifyLinkClient: SpotifyLinkClient;
  }
  & NetworkPrivateTargetsDeps
  & SearchMatchDeps;

export interface ResolvedLink extends MatchedNames {
  kind: LinkKind;
  source: LinkSource;
}

/** What a streaming service says a link is: names only; MBIDs come from matching them. */
interface Names {
  artist: string;
  album: string | null;
  track: string | null;
  /** A track's ISRC when the service reports it (Spotify, Deezer): matched before titles. */
  isrc?: string | null;
}

const SUPPORTED = 'Spotify, Apple Music, Deezer, YouTube / YouTube Music (videos and album playlists), Tidal, Bandcamp and MusicBrainz artist, album and track links';

/**
 * GET /api/search/link: a pasted link → what it names and the matching MusicBrainz ids. MusicBrainz
 * links resolve by id; the others ask their service for names (Spotify Web API with an app token,
 * Deezer and iTunes public APIs, YouTube and Tidal oEmbed, Bandcamp's OpenGraph tags) and match
 * the names through MusicBrainz search. The clients are built per call from the current settings.
 */
export async function resolveLink(ctx: Deps, raw: string): Promise<ResolvedLink> {
  const link = parseLink(raw);
  if (!link) throw new ValidationError(`Not a supported link. Supported: ${SUPPORTED}.`, 'UNSUPPORTED_LINK');
  if (link.source === 'musicbrainz') return resolveMusicBrainz(ctx, link);
  const names = await namesOf(ctx, link);
  const matched = await matchNames(ctx, names);
  return { kind: link.kind, source: link.source, ...matched };
}

async function resolveMusicBrainz(ctx: Deps, link: ParsedLink): Promise<ResolvedLink> {
  const metadata = ctx.metadata;
  const base = { kind: link.kind, source: link.source };
  const credit = (c: { name: string; artist: { id: string } }[] | undefined) => ({ name: c?.map((x) => x.name).join(' & ') ?? '', mbid: c?.[0]?.artist.id ?? null });
  switch (link.entity) {
    case 'artist': {
      const { artist } = await metadata.artist(link.id);
      return { ...base, artist: { name: artist.name, mbid: artist.id }, album: null, track: null };
    }
    case 'release-group': {
      const group = await metadata.releaseGroup(link.id);
      return { ...base, artist: credit(group['artist-credit']), album: { title: group.title, mbid: group.id }, track: null };
    }
    case 'release': {
      const release = await metadata.release(link.id);
      const group = release['release-group'];
      return { ...base, artist: credit(release['artist-credit']), album: { title: group?.title ?? release.title, mbid: group?.id ?? null }, track: null };
    }
    default: {
      const recordings = await metadata.musicbrainz().searchRecordings(`rid:${link.id}`, 1, 0);
      const recording = recordings.recordings.find((r) => r.id === link.id);
      if (!recording) throw new NotFoundError('Recording not found');
      const group = recording.releases.find((r) => r['release-group'])?.['release-group'];
      return {
        ...base,
        artist: credit(recording['artist-credit']),
        album: group ? { title: group.title, mbid: group.id } : null,
        track: { title: recording.title, mbid: recording.id },
      };
    }
  }
}

/** One Spotify client (and so one app token) per server, rebuilt when its settings change. */
export interface SpotifyLinkClient {
  current?: { key: string; client: SpotifyClient };
}
function spotifyClient(ctx: { spotifyLinkClient: SpotifyLinkClient }, options: ConstructorParameters<typeof SpotifyClient>[0]): SpotifyClient {
  const key = JSON.stringify(options);
  const holder = ctx.spotifyLinkClient;
  if (!holder.current || holder.current.key !== key) holder.current = { key, client: new SpotifyClient(options) };
  return holder.current.client;
}

/** A link the service does not know (deleted, region-locked, private). */
const missing = (link: ParsedLink) => new NotFoundError('Link target not found', `${link.url.href} names nothing ${link.source} knows`);

async function namesOf(ctx: Deps, link: ParsedLink): Promise<Names> {
  try {
    return await fetchNames(ctx, link);
  } catch (err) {
    if (err instanceof IntegrationError && err.kind === 'not_found') throw missing(link);
    throw err;
  }
}

async function fetchNames(ctx: Deps, link: ParsedLink): Promise<Names> {
  const up = ctx.config.upstreams;
  const userAgent = ctx.metadata.userAgent();
  const spacing = up.spacingMs !== null ? { spacingMs: up.spacingMs } : {};
  switch (link.source) {
    case 'spotify': {
      const s = ctx.settings.get().integrations.spotify;
      if (!s.enabled || !s.clientId || !s.clientSecret)
        throw new NotConfiguredError('integrations.spotify.clientSecret', 'Spotify links need a Spotify app: set integrations.spotify.clientId and integrations.spotify.clientSecret');
      const spotify = spotifyClient(ctx, { apiUrl: up.spotifyApi, accountsUrl: up.spotifyAccounts, clientId: s.clientId, clientSecret: s.clientSecret, userAgent, ...spacing });
      if (link.kind === 'artist') return { artist: (await spotify.artist(link.id)).name, album: null, track: null };
      if (link.kind === 'album') {
        const album = await spotify.album(link.id);
        return { artist: album.artists[0]?.name ?? '', album: album.name, track: null };
      }
      const track = await spotify.track(link.id);
      return { artist: track.artists[0]?.name ?? '', album: track.album?.name ?? null, track: track.name, isrc: track.external_ids?.isrc ?? null };
    }
    case 'deezer': {
      const deezer = new DeezerClient({ baseUrl: up.deezer, userAgent, ...spacing });
      if (link.kind === 'artist') return { artist: (await deezer.artist(link.id)).name, album: null, track: null };
      if (link.kind === 'album') {
        const album = await deezer.album(link.id);
        return { artist: album.artist.name, album: album.title, track: null };
      }
      const track = await deezer.track(link.id);
      return { artist: track.artist.name, album: track.album?.title ?? null, track: track.title, isrc: track.isrc ?? null };
    }
    case 'apple': {
      const entry = await new ItunesClient({ baseUrl: up.itunes, userAgent, ...spacing }).lookup(link.id, link.country ?? 'us');
      const expected = { artist: 'artist', album: 'collection', track: 'track' }[link.kind];
      if (!entry || entry.wrapperType !== expected) throw missing(link);
      return {
        artist: entry.artistName ?? '',
        album: link.kind === 'artist' ? null : (entry.collectionName ?? null),
        track: link.kind === 'track' ? (entry.trackName ?? null) : null,
      };
    }
    case 'youtube': {
      const oembed = new OEmbedClient({ service: 'youtube', label: 'YouTube oEmbed', baseUrl: up.youtube, path: '/oembed', userAgent, ...spacing });
      const page = link.kind === 'album' ? `https://music.youtube.com/playlist?list=${link.id}` : `https://www.youtube.com/watch?v=${link.id}`;
      return youtubeNames(link.kind, await oembed.get(page));
    }
    case 'tidal': {
      const oembed = new OEmbedClient({ service: 'tidal', label: 'Tidal oEmbed', baseUrl: up.tidalOembed, path: '/', userAgent, ...spacing });
      return tidalNames(link.kind, await oembed.get(`https://tidal.com/browse/${link.kind}/${link.id}`));
    }
    case 'bandcamp': {
      const page = await fetchBandcampPage(link.url, { allowPrivateTargets: allowedPrivateTargets(ctx), userAgent, rewriteBase: up.bandcamp });
      if (link.kind === 'artist') return { artist: page.artist, album: null, track: null };
      if (link.kind === 'album') return { artist: page.artist, album: page.title, track: null };
      return { artist: page.artist, album: page.album, track: page.title };
    }
    default:
      throw new ValidationError(`Not a supported link. Supported: ${SUPPORTED}.`, 'UNSUPPORTED_LINK');
  }
}

/** "Artist - Title (Official Video)" → its parts; a YouTube Music "Artist - Topic" channel names the artist. */
export function youtubeNames(kind: LinkKind, o: OEmbed): Names {
  const author = (o.author_name ?? '').replace(/\s+-\s+Topic$/i, '').replace(/VEVO$/i, '').trim();
  const title = o.title.replace(/\s*[([](official|music|lyric|audio|video|visuali[sz]er|hd|4k)[^)\]]*[)\]]/gi, '').trim();
  if (kind === 'album') {
    const album = title.replace(/^Album\s+-\s+/i, '');
    return { artist: author, album, track: null };
  }
  const dash = /^(.+?)\s+[-–—]\s+(.+)$/.exec(title);
  // An "Artist - Topic" upload titles the track alone; otherwise "Artist - Title" is the convention.
  if (dash && !/\s+-\s+Topic$/i.test(o.author_name ?? '')) return { artist: dash[1]!.trim(), album: null, track: dash[2]!.trim() };
  return { artist: author, album: null, track: title };
}

/** Tidal's oEmbed titles an item and names its artist as the author; older answers say "Title by Artist". */
export function tidalNames(kind: LinkKind, o: OEmbed): Names {
  const by = /^(.+?) by (.+)$/.exec(o.title);
  const artist = o.author_name?.trim() || (by ? by[2]!.trim() : '');
  const title = o.author_name ? o.title.trim() : by ? by[1]!.trim() : o.title.trim();
  if (kind === 'artist') return { artist: o.author_name?.trim() || o.title.trim(), album: null, track: null };
  if (!artist) throw new IntegrationError('tidal', 'bad_response', 'Tidal oEmbed named no artist');
  return kind === 'album' ? { artist, album: title, track: null } : { artist, album: null, track: title };
}
