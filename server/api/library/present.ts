import type { AlbumRow, ArtistRow, GenreRow, MediaFileRow, TrackRow } from '../../db/libraryReads.js';
import { sourcesOf } from '../../db/libraryReads.js';
import { isoTime } from '../../domain/timestamps.js';
import { replayGainWire } from '../../library/replayGain.js';

/** Library rows → the entries of api.md §2 plus the Lidarr-style fields of decisions §8. */

export const imageUrl = (key: string | null) => (key ? `/api/image-proxy/${key}` : null);
const iso = (ms: number) => isoTime(ms) ?? null;
const managedBy = (sources: number) => (sources & 1 || !(sources & 2) ? 'aurral' : 'lidarr');

export function artistEntry(a: ArtistRow, favoriteAt?: number) {
  return {
    id: a.id,
    identityKey: a.identity_key,
    name: a.name,
    artistName: a.name,
    mbid: a.mbid,
    foreignArtistId: a.mbid,
    monitored: true,
    monitorOption: 'none',
    addedAt: iso(a.created_at),
    available: a.available === 1,
    sources: sourcesOf(a.sources),
    managedBy: managedBy(a.sources),
    imageUrl: imageUrl(a.image_key),
    // albumCount: the artist's own albums; appearsOnCount: other artists' albums it has tracks on.
    statistics: {
      albumCount: a.album_count,
      appearsOnCount: a.appears_on_count,
      trackCount: a.track_count,
      availableTrackCount: a.available_track_count,
      sizeOnDisk: a.size_on_disk,
    },
    userFavorite: favoriteAt !== undefined,
  };
}

export function albumEntry(a: AlbumRow, favoriteAt?: number) {
  return {
    id: a.id,
    identityKey: a.identity_key,
    title: a.title,
    albumName: a.title,
    artistId: a.artist_id,
    artistName: a.album_artist,
    mbid: a.mbid,
    foreignAlbumId: a.mbid,
    releaseMbid: a.release_mbid,
    releaseDate: a.release_date,
    year: a.year || null,
    monitored: a.monitored === 1,
    albumType: a.album_type ?? 'Album',
    secondaryTypes: JSON.parse(a.secondary_types) as string[],
    addedAt: iso(a.created_at),
    durationMs: a.duration_ms,
    available: a.available === 1,
    sources: sourcesOf(a.sources),
    managedBy: managedBy(a.sources),
    imageUrl: imageUrl(a.image_key),
    statistics: {
      trackCount: a.track_count,
      trackFileCount: a.available_track_count,
      sizeOnDisk: a.size_on_disk,
      percentOfTracks: a.track_count > 0 ? Math.round((a.available_track_count / a.track_count) * 1000) / 10 : 0,
    },
    userFavorite: favoriteAt !== undefined,
  };
}

export function fileEntry(f: MediaFileRow) {
  return {
    id: f.id,
    source: f.source,
    format: f.format,
    contentType: f.mime,
    codec: f.codec,
    size: f.size,
    durationMs: f.duration_ms,
    bitrate: f.bitrate,
    sampleRate: f.sample_rate,
    bitDepth: f.bit_depth,
    channels: f.channels,
    lossless: f.lossless === 1,
    available: f.available === 1,
    tagError: f.tag_error,
    addedAt: iso(f.created_at),
  };
}

export function qualityOf(f: MediaFileRow | undefined) {
  if (!f) return null;
  const format = (f.format ?? 'unknown').toUpperCase();
  return { name: f.lossless ? format : f.bitrate ? `${format} ${Math.round(f.bitrate / 1000)}k` : format, lossless: f.lossless === 1, bitrate: f.bitrate };
}

export function trackEntry(t: TrackRow, files: MediaFileRow[], favoriteAt?: number) {
  const best = files.find((f) => f.available === 1);
  return {
    id: t.id,
    identityKey: t.identity_key,
    title: t.title,
    trackName: t.title,
    artistName: t.artist_name,
    artistId: t.artist_id,
    albumId: t.album_id,
    albumTitle: t.album_title,
    mbid: t.mbid,
    discNumber: t.disc_number,
    trackNumber: t.track_number,
    year: t.year || null,
    durationMs: t.duration_ms,
    available: t.available === 1,
    hasFile: best !== undefined,
    size: best?.size ?? 0,
    quality: qualityOf(best),
    sources: sourcesOf(t.sources),
    imageUrl: imageUrl(t.image_key),
    streamUrl: `/api/library/canonical-stream/${t.id}`,
    files: files.map(fileEntry),
    /** decisions §12: the playable file's values, as in /rest (only those known). */
    replayGain: best ? replayGainWire(best) : {},
    userFavorite: favoriteAt !== undefined,
  };
}

export function genreEntry(g: GenreRow, availableOnly: boolean) {
  return {
    id: g.id,
    name: g.name,
    artistCount: availableOnly ? g.available_artist_count : g.artist_count,
    albumCount: availableOnly ? g.available_album_count : g.album_count,
    trackCount: availableOnly ? g.available_track_count : g.track_count,
  };
}
