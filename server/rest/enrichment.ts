import { artistPicture, type AlbumInfoDocument, type CoverDocument, type ArtistInfoDocument, type SimilarDocument, type TopTracksDocument } from '../domain/metadata/enrichment.js';
import { frontCover } from '../domain/metadata/present.js';
import type { RestCall } from './context.js';
import type { Payload } from './wire.js';

/**
 * What the metadata cache knows for Subsonic players: never waits on an upstream. A document not
 * cached yet (or stale) gets a background refresh, and the answer carries what is there now.
 */

const MBID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Tags may carry anything in their MusicBrainz fields; only real MBIDs are looked up upstream. */
export const isMbid = (value: string | null | undefined): value is string => !!value && MBID.test(value);

/** An absolute URL of a remote picture through the image proxy (which players fetch without a session). */
function imageUrl(call: RestCall, remote: string | null | undefined): string | undefined {
  const path = call.rc.app.remoteImages.proxyUrl(remote ?? null);
  return path ? `${call.req.protocol}://${call.req.get('host')}${call.rc.app.config.basePath}${path}` : undefined;
}

const plainText = (html: string) =>
  html
    // Last.fm ends its texts with a link back to itself; the link is given as lastFmUrl instead.
    .replace(/\s*<a\b[^>]*>\s*Read more on Last\.fm\s*<\/a>\.?/gi, '')
    .replace(/<a\b[^>]*>(.*?)<\/a>/gi, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/** Biography, links and pictures of an artist MBID (fields absent when nothing is known yet). */
export function artistInfoFields(call: RestCall, mbid: string): Payload {
  if (!isMbid(mbid)) return { musicBrainzId: mbid };
  const e = call.rc.app.enrichment;
  const key = e.resolve(mbid);
  const info = e.cached<ArtistInfoDocument>('lastfm-info', key);
  const deezer = e.cachedDeezerArtist(mbid);
  const out: Payload = {};
  if (info?.bio.content || info?.bio.summary) out.biography = plainText(info.bio.content || info.bio.summary);
  out.musicBrainzId = mbid;
  if (info?.url) out.lastFmUrl = info.url;
  if (deezer) {
    const small = imageUrl(call, deezer.picture_medium ?? deezer.picture);
    const medium = imageUrl(call, deezer.picture_big ?? deezer.picture_medium);
    const large = imageUrl(call, artistPicture(deezer));
    if (small) out.smallImageUrl = small;
    if (medium) out.mediumImageUrl = medium;
    if (large) out.largeImageUrl = large;
  }
  return out;
}

/** Library artist ids of the cached similar artists that are in the library, best match first. */
export function similarLibraryArtists(call: RestCall, mbid: string, max: number): number[] {
  if (!isMbid(mbid)) return [];
  const e = call.rc.app.enrichment;
  const similar = e.cached<SimilarDocument>('lastfm-similar', e.resolve(mbid)) ?? [];
  const out: number[] = [];
  for (const s of similar) {
    if (out.length >= max) break;
    const row = s.mbid ? call.rc.reader.artistByMbid(s.mbid) : undefined;
    const id = row?.id ?? call.rc.library.artistIdByName(s.name);
    if (id !== undefined && !out.includes(id)) out.push(id);
  }
  return out;
}

/** Library songs named like the artist's cached Last.fm top tracks, in their order. */
export function topSongIds(call: RestCall, mbid: string | null, artistName: string, max: number): number[] {
  if (!isMbid(mbid)) return [];
  const e = call.rc.app.enrichment;
  const top = e.cached<TopTracksDocument>('lastfm-top-tracks', e.resolve(mbid)) ?? [];
  const out: number[] = [];
  for (const t of top) {
    if (out.length >= max) break;
    const id = call.rc.library.songIdByTitle(t.name, artistName);
    if (id !== undefined && !out.includes(id)) out.push(id);
  }
  return out;
}

/**
 * Notes (Last.fm's album wiki summary, when a Last.fm key is set) and cover pictures of a release
 * group, from the cached Last.fm page and Cover Art Archive list.
 */
export function albumInfoFields(call: RestCall, releaseGroupMbid: string): Payload {
  if (!isMbid(releaseGroupMbid)) return { musicBrainzId: releaseGroupMbid };
  const e = call.rc.app.enrichment;
  const info = e.cached<AlbumInfoDocument>('lastfm-album', releaseGroupMbid);
  const cover = e.cached<CoverDocument>('cover', releaseGroupMbid);
  const out: Payload = {};
  const notes = info ? plainText(info.wiki.summary || info.wiki.content) : '';
  if (notes) out.notes = notes;
  out.musicBrainzId = releaseGroupMbid;
  if (info?.url) out.lastFmUrl = info.url;
  if (!cover) return out;
  const front = cover.images.find((i) => i.front) ?? cover.images[0];
  const small = imageUrl(call, front?.thumbnails['250'] ?? front?.thumbnails.small);
  const medium = imageUrl(call, frontCover(cover));
  const large = imageUrl(call, front?.thumbnails['1200'] ?? front?.thumbnails.large ?? front?.image);
  if (small) out.smallImageUrl = small;
  if (medium) out.mediumImageUrl = medium;
  if (large) out.largeImageUrl = large;
  return out;
}

