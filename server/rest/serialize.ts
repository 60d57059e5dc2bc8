import path from 'node:path';
import type { PlaylistRef } from '../domain/playlists/registry.js';
import type { ChannelRow, EpisodeRow } from '../db/podcasts.js';
import type { RadioStationRow } from '../db/radioStations.js';
import type { AlbumEntry, ArtistEntry, SongRow } from '../db/subsonicLibrary.js';
import type { Annotation } from '../db/subsonicUserData.js';
import { entityId, playlistId, rowId } from './ids.js';
import type { Payload } from './wire.js';
import { isoTime } from '../domain/timestamps.js';
import { replayGainWire } from '../library/replayGain.js';

/** Library rows to Subsonic response elements (Child, AlbumID3, ArtistID3, Playlist, ...). */

/** ISO form of a stored instant; a value no date can show is left out rather than failing the answer. */
export const iso = (ms: number): string | undefined => isoTime(ms);

function annotate(out: Payload, a: Annotation | undefined, withPlays = true): Payload {
  if (!a) return out;
  if (a.starredAt !== undefined) out.starred = iso(a.starredAt);
  if (a.rating !== undefined) out.userRating = a.rating;
  if (withPlays && a.playCount !== undefined) out.playCount = a.playCount;
  if (withPlays && a.playedAt !== undefined) out.played = iso(a.playedAt);
  return out;
}

const positive = (n: number | null | undefined) => (n !== null && n !== undefined && n > 0 ? n : undefined);

export function suffixOf(row: Pick<SongRow, 'path' | 'format'>): string {
  const ext = row.path ? path.extname(row.path).slice(1).toLowerCase() : '';
  return ext || (row.format ?? '').toLowerCase();
}

/** A relative path clients may use to lay out downloads; never the real location on disk. */
function displayPath(row: SongRow, suffix: string): string {
  const clean = (s: string) => s.replace(/[/\\]/g, '_').trim() || '_';
  const n = row.track_number > 0 ? `${String(row.track_number).padStart(2, '0')} - ` : '';
  return `${clean(row.album_artist ?? row.artist_name)}/${clean(row.album_title ?? 'Unknown Album')}/${n}${clean(row.title)}${suffix ? `.${suffix}` : ''}`;
}

export function songCoverArt(row: SongRow): string | undefined {
  if (row.album_image && row.album_key) return entityId('album', row.album_key);
  if (row.file_image) return entityId('track', row.identity_key);
  return undefined;
}

/** A song as a Subsonic `Child`. */
export function child(row: SongRow, a?: Annotation, bookmarkMs?: number): Payload {
  const suffix = suffixOf(row);
  const artistId = row.artist_key ? entityId('artist', row.artist_key) : undefined;
  const albumId = row.album_key ? entityId('album', row.album_key) : undefined;
  const albumArtistId = row.album_artist_key ? entityId('artist', row.album_artist_key) : undefined;
  const durationMs = row.duration_ms || row.file_duration_ms || 0;
  const out: Payload = {
    id: entityId('track', row.identity_key),
    parent: albumId,
    isDir: false,
    title: row.title,
    album: row.album_title ?? undefined,
    artist: row.artist_name,
    track: positive(row.track_number),
    year: positive(row.year),
    genre: row.genre ?? undefined,
    coverArt: songCoverArt(row),
    size: row.size ?? undefined,
    contentType: row.mime ?? undefined,
    suffix: suffix || undefined,
    duration: Math.round(durationMs / 1000),
    bitRate: row.bitrate ? Math.round(row.bitrate / 1000) : undefined,
    bitDepth: positive(row.bit_depth),
    samplingRate: positive(row.sample_rate),
    channelCount: positive(row.channels),
    path: displayPath(row, suffix),
    isVideo: false,
    discNumber: positive(row.disc_number),
    created: iso(row.created_at),
    albumId,
    artistId,
    type: 'music',
    mediaType: 'song',
    musicBrainzId: row.mbid ?? undefined,
    genres: row.genre ? [{ name: row.genre }] : [],
    artists: artistId ? [{ id: artistId, name: row.artist_name }] : [],
    displayArtist: row.artist_name,
    albumArtists: albumArtistId && row.album_artist ? [{ id: albumArtistId, name: row.album_artist }] : [],
    displayAlbumArtist: row.album_artist ?? undefined,
    // OpenSubsonic: always present on a song, holding only the values known (decisions §12).
    replayGain: replayGainWire(row),
  };
  if (bookmarkMs !== undefined) out.bookmarkPosition = bookmarkMs;
  return annotate(out, a);
}

function releaseTypes(album: AlbumEntry): string[] {
  const types: string[] = [];
  if (album.album_type) types.push(album.album_type);
  try {
    for (const t of JSON.parse(album.secondary_types) as unknown[]) if (typeof t === 'string') types.push(t);
  } catch {
    // malformed stored list: primary type only
  }
  return types;
}

function releaseDate(album: AlbumEntry): Payload | undefined {
  const m = /^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?/.exec(album.release_date ?? '');
  if (!m) return undefined;
  return { year: Number(m[1]), ...(m[2] && { month: Number(m[2]) }), ...(m[3] && { day: Number(m[3]) }) };
}

/** An album as `AlbumID3`. */
export function albumID3(album: AlbumEntry, a?: Annotation): Payload {
  const id = entityId('album', album.identity_key);
  const artistId = album.artist_key ? entityId('artist', album.artist_key) : undefined;
  const types = releaseTypes(album);
  const out: Payload = {
    id,
    name: album.title,
    artist: album.album_artist,
    artistId,
    coverArt: album.image_key ? id : undefined,
    songCount: album.available_track_count,
    duration: Math.round(album.duration_ms / 1000),
    created: iso(album.created_at),
    year: positive(album.year),
    genre: album.genre ?? undefined,
    musicBrainzId: album.mbid ?? undefined,
    genres: album.genre ? [{ name: album.genre }] : [],
    artists: artistId ? [{ id: artistId, name: album.album_artist }] : [],
    displayArtist: album.album_artist,
    releaseTypes: types,
    sortName: album.sort_name,
    isCompilation: types.some((t) => t.toLowerCase() === 'compilation'),
    releaseDate: releaseDate(album),
  };
  return annotate(out, a);
}

/** An album as a directory `Child` (folder browsing), with the AlbumID3 `name` and `songCount` strict clients read. */
export function albumChild(album: AlbumEntry, a?: Annotation): Payload {
  const id = entityId('album', album.identity_key);
  const out: Payload = {
    id,
    parent: album.artist_key ? entityId('artist', album.artist_key) : undefined,
    isDir: true,
    title: album.title,
    name: album.title,
    songCount: album.available_track_count,
    album: album.title,
    artist: album.album_artist,
    year: positive(album.year),
    genre: album.genre ?? undefined,
    coverArt: album.image_key ? id : undefined,
    duration: Math.round(album.duration_ms / 1000),
    created: iso(album.created_at),
    albumId: id,
    artistId: album.artist_key ? entityId('artist', album.artist_key) : undefined,
    mediaType: 'album',
  };
  return annotate(out, a);
}

/** An artist as `ArtistID3`. */
export function artistID3(artist: ArtistEntry, a?: Annotation): Payload {
  const id = entityId('artist', artist.identity_key);
  const out: Payload = {
    id,
    name: artist.name,
    coverArt: artist.image_key ? id : undefined,
    // Every album getArtist lists: its own and those it appears on.
    albumCount: artist.album_count + artist.appears_on_count,
    musicBrainzId: artist.mbid ?? undefined,
    sortName: artist.sort_name,
  };
  return annotate(out, a, false);
}

/** An artist as a folder-browsing `Artist` (getIndexes). */
export function indexArtist(artist: ArtistEntry, a?: Annotation): Payload {
  const out: Payload = { id: entityId('artist', artist.identity_key), name: artist.name };
  return annotate(out, a, false);
}

/**
 * A playlist of any kind (static, flow, shared) from the registry: `pl-` id from its rest number,
 * `readonly` (OpenSubsonic) when the viewer may not change it.
 */
export function playlistOfRef(ref: PlaylistRef, editable: boolean, coverTrack?: SongRow, hasArtwork = false): Payload {
  const id = playlistId(ref.restNumber);
  return {
    id,
    name: ref.name,
    comment: ref.comment || undefined,
    owner: ref.owner,
    public: ref.public,
    songCount: ref.songCount,
    duration: Math.round(ref.durationMs / 1000),
    created: iso(ref.createdAt),
    changed: iso(ref.updatedAt),
    coverArt: hasArtwork ? id : coverTrack ? songCoverArt(coverTrack) : undefined,
    readonly: !editable,
  };
}

export function radioStation(row: RadioStationRow): Payload {
  return { id: rowId('radioStation', row.id), name: row.name, streamUrl: row.stream_url, homePageUrl: row.home_page_url ?? undefined };
}

/** A podcast episode: a `Child` of type podcast; `streamId` only once it is downloaded. */
export function podcastEpisode(row: EpisodeRow): Payload {
  const id = rowId('podcastEpisode', row.id);
  const channelId = rowId('podcastChannel', row.channel_id);
  const downloaded = row.status === 'completed' && row.file_path !== null;
  const suffix = downloaded ? path.extname(row.file_path!).slice(1).toLowerCase() : undefined;
  return {
    id,
    parent: channelId,
    isDir: false,
    title: row.title,
    album: row.channel_title ?? undefined,
    artist: row.channel_title ?? undefined,
    year: row.published_at !== null ? new Date(row.published_at).getUTCFullYear() : undefined,
    size: downloaded ? (row.file_size ?? undefined) : (row.enclosure_length ?? undefined),
    contentType: (downloaded ? row.content_type : row.enclosure_type) ?? undefined,
    suffix: suffix || undefined,
    duration: row.duration_seconds ?? undefined,
    bitRate: downloaded && row.bitrate ? Math.round(row.bitrate / 1000) : undefined,
    isVideo: false,
    created: iso(row.created_at),
    type: 'podcast',
    streamId: downloaded ? id : undefined,
    channelId,
    description: row.description ?? undefined,
    status: row.status,
    publishDate: row.published_at !== null ? iso(row.published_at) : undefined,
  };
}

export function podcastChannel(row: ChannelRow, episodes?: EpisodeRow[]): Payload {
  return {
    id: rowId('podcastChannel', row.id),
    url: row.url,
    title: row.title ?? undefined,
    description: row.description ?? undefined,
    originalImageUrl: row.image_url ?? undefined,
    status: row.status,
    errorMessage: row.error_message ?? undefined,
    episode: episodes?.map(podcastEpisode),
  };
}
