import type { ImportSource } from '../../db/playlistImports.js';
import { scrobbleLinks } from '../../db/scrobbling.js';
import { LASTFM_STATIONS, LastFmStations, type LastFmStation } from '../../integrations/lastfm/stations.js';
import { ListenBrainzPlaylists } from '../../integrations/listenbrainz/playlists.js';
import { decrypt } from '../../secrets.js';
import { NotConfiguredError, NotFoundError } from '../errors.js';
import type { SourceTrack } from './matching.js';
import { spotifyUserClient, type Deps as ImportsSpotifyAccountDeps } from './spotifyAccount.js';
import type { Kernel } from '../../kernel.js';
import type { MetadataService } from '../metadata/service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'config' | 'db' | 'secrets'> & { metadata: MetadataService } & ImportsSpotifyAccountDeps;

/**
 * Where imports come from, each behind the same two calls: the playlists a user can import, and
 * one playlist's tracks as pages (Spotify's 100 at a time as they arrive; the others in one page).
 */
export interface SourcePlaylist {
  id: string;
  name: string;
  owner: string | null;
  /** Null when the source does not say before the tracks are read (Last.fm stations). */
  trackCount: number | null;
  /** `playlist`, `createdfor` (ListenBrainz's playlists made for the user) or `station` (Last.fm). */
  kind: 'playlist' | 'createdfor' | 'station';
  description: string | null;
}

export interface OpenedPlaylist {
  id: string;
  name: string;
  total: number | null;
  pages: AsyncIterable<SourceTrack[]>;
}

const STATION_NAMES: Record<LastFmStation, { name: string; description: string }> = {
  library: { name: 'Library', description: 'Tracks from your own Last.fm scrobbles' },
  mix: { name: 'Mix', description: 'Your scrobbles mixed with recommendations' },
  recommended: { name: 'Recommended', description: "Last.fm's recommendations for you" },
};

function spacing(ctx: Deps) {
  const s = ctx.config.upstreams.spacingMs;
  return s === null ? {} : { spacingMs: s };
}

function listenBrainzFor(ctx: Deps, userId: number): { client: ListenBrainzPlaylists; user: string } {
  const link = scrobbleLinks.get(ctx.db, userId, 'listenbrainz');
  if (!link || !link.username) throw new NotConfiguredError('listenbrainz account', 'Link your ListenBrainz account first (Settings → Account)');
  const token = decrypt(ctx.secrets.encryptionKey, link.secretEnc);
  return { client: new ListenBrainzPlaylists({ baseUrl: ctx.config.upstreams.listenbrainz, userAgent: ctx.metadata.userAgent(), token, ...spacing(ctx) }), user: link.username };
}

function lastfmFor(ctx: Deps, userId: number): { client: LastFmStations; user: string } {
  const link = scrobbleLinks.get(ctx.db, userId, 'lastfm');
  if (!link || !link.username) throw new NotConfiguredError('lastfm account', 'Link your Last.fm account first (Settings → Account)');
  return { client: new LastFmStations({ webUrl: ctx.config.upstreams.lastfmWeb, userAgent: ctx.metadata.userAgent(), ...spacing(ctx) }), user: link.username };
}

export async function listPlaylists(ctx: Deps, userId: number, source: ImportSource): Promise<SourcePlaylist[]> {
  if (source === 'spotify') {
    const list = await spotifyUserClient(ctx, userId).playlists();
    return list.map((p) => ({ id: p.id, name: p.name, owner: p.owner, trackCount: p.trackCount, kind: 'playlist', description: null }));
  }
  if (source === 'listenbrainz') {
    const { client, user } = listenBrainzFor(ctx, userId);
    const [own, made] = [await client.list(user, false), await client.list(user, true)];
    return [
      ...own.map((p) => ({ id: p.id, name: p.name, owner: p.creator, trackCount: p.trackCount, kind: 'playlist' as const, description: null })),
      ...made.map((p) => ({ id: p.id, name: p.name, owner: p.creator, trackCount: p.trackCount, kind: 'createdfor' as const, description: p.sourcePatch })),
    ];
  }
  const { user } = lastfmFor(ctx, userId);
  return LASTFM_STATIONS.map((s) => ({ id: s, name: STATION_NAMES[s].name, owner: user, trackCount: null, kind: 'station', description: STATION_NAMES[s].description }));
}

export async function openPlaylist(ctx: Deps, userId: number, source: ImportSource, id: string, signal?: AbortSignal): Promise<OpenedPlaylist> {
  if (source === 'spotify') {
    const client = spotifyUserClient(ctx, userId);
    const meta = await client.playlist(id, signal);
    async function* pages(): AsyncGenerator<SourceTrack[]> {
      for await (const page of client.tracks(id, signal))
        yield page.tracks.map((t) => ({ title: t.title, artists: t.artists, album: t.album, durationMs: t.durationMs, isrc: t.isrc, recordingMbid: null }));
    }
    return { id: meta.id, name: meta.name, total: meta.trackCount, pages: pages() };
  }
  if (source === 'listenbrainz') {
    const { client } = listenBrainzFor(ctx, userId);
    const { playlist, tracks } = await client.playlist(id, signal);
    const page: SourceTrack[] = tracks.map((t) => ({
      title: t.title,
      artists: t.artist.split(/\s*;\s*/).filter(Boolean),
      album: t.album,
      durationMs: t.durationMs,
      isrc: null,
      recordingMbid: t.recordingMbid,
    }));
    return { id: playlist.id, name: playlist.name, total: page.length, pages: onePage(page) };
  }
  if (!(LASTFM_STATIONS as readonly string[]).includes(id)) throw new NotFoundError('Station not found', `Last.fm stations are ${LASTFM_STATIONS.join(', ')}`);
  const { client, user } = lastfmFor(ctx, userId);
  const station = id as LastFmStation;
  const tracks = await client.tracks(user, station, signal);
  const page: SourceTrack[] = tracks.map((t) => ({ title: t.title, artists: [t.artist], album: t.album, durationMs: t.durationMs, isrc: null, recordingMbid: t.recordingMbid }));
  return { id: station, name: `Last.fm ${STATION_NAMES[station].name}`, total: page.length, pages: onePage(page) };
}

async function* onePage(tracks: SourceTrack[]): AsyncGenerator<SourceTrack[]> {
  yield tracks;
}
