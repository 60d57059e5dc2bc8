import type { DeezerArtist } from '../../integrations/deezer/client.js';
import type { MbArtist } from '../../integrations/musicbrainz/schemas.js';
import type { ArtistInfoDocument, DeezerTopDocument, SimilarDocument } from './enrichment.js';
import type { LibraryService } from '../library/service.js';
import type { RemoteImages } from './remoteImages.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = { library: LibraryService; remoteImages: RemoteImages };

/** Wire shapes of the enrichment routes and SSE events; every remote picture is a proxy URL. */
export function similarEntries(ctx: Deps, list: SimilarDocument, limit: number) {
  const reader = ctx.library.reader;
  const images = ctx.remoteImages;
  const top = list.slice(0, limit);
  const present = reader.artistMbidsPresent(top.map((a) => a.mbid).filter((m): m is string => !!m));
  return top.map((a) => {
    const inLibrary = !!a.mbid && present.has(a.mbid);
    const picture = [...a.image].reverse()[0]?.url ?? null;
    return {
      id: a.mbid,
      name: a.name,
      match: a.match,
      url: a.url || null,
      imageUrl: images.proxyUrl(picture),
      inLibrary,
      libraryArtistId: inLibrary ? (reader.artistByMbid(a.mbid!)?.id.toString() ?? null) : null,
    };
  });
}

const SIZES = [
  ['small', 'picture_small'],
  ['medium', 'picture_medium'],
  ['large', 'picture_big'],
  ['xl', 'picture_xl'],
] as const;

export function artistCover(ctx: Deps, mbid: string, artist: DeezerArtist | null, overridden: boolean, retry = false) {
  const images = ctx.remoteImages;
  const list = artist ? SIZES.map(([size, field]) => ({ size, url: images.proxyUrl(artist[field], { retry }) })).filter((i): i is { size: (typeof SIZES)[number][0]; url: string } => i.url !== null) : [];
  return {
    mbid,
    source: artist ? ('deezer' as const) : null,
    deezerArtistId: artist ? String(artist.id) : null,
    deezerName: artist?.name ?? null,
    /** true when the Deezer artist was named in the overrides rather than found by name. */
    overridden,
    imageUrl: list.find((i) => i.size === 'large')?.url ?? list.at(-1)?.url ?? null,
    images: list,
  };
}

export function previewTracks(ctx: Deps, mbid: string, artist: DeezerArtist | null, tracks: DeezerTopDocument, limit: number) {
  const images = ctx.remoteImages;
  return {
    mbid,
    source: artist ? ('deezer' as const) : null,
    deezerArtistId: artist ? String(artist.id) : null,
    tracks: tracks.slice(0, limit).map((t) => ({
      id: String(t.id),
      title: t.title,
      durationMs: t.duration === undefined ? null : t.duration * 1000,
      rank: t.rank ?? null,
      /** A 30 s MP3 from Deezer, or null when it has none. */
      previewUrl: t.preview,
      link: t.link ?? null,
      album: t.album ? { id: String(t.album.id), title: t.album.title, coverUrl: images.proxyUrl(t.album.cover_big ?? t.album.cover_medium ?? null) } : null,
    })),
  };
}

export function artistBio(mbid: string, info: ArtistInfoDocument | null) {
  return {
    mbid,
    source: info ? ('lastfm' as const) : null,
    name: info?.name ?? null,
    lastFmUrl: info?.url || null,
    summary: info?.bio.summary ?? '',
    content: info?.bio.content ?? '',
    tags: info?.tags ?? [],
    listeners: info?.listeners ?? null,
  };
}

/** Video links MusicBrainz lists for the artist (their channels; no per-track video without a video API). */
export function artistVideoLinks(artist: MbArtist) {
  return (artist.relations ?? [])
    .filter((r) => r.url && (/youtube|video/i.test(r.type) || /(^|\.)(youtube\.com|youtu\.be|vimeo\.com)$/i.test(hostOf(r.url.resource))))
    .map((r) => ({ type: r.type, url: r.url!.resource }));
}

const hostOf = (url: string) => {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
};
