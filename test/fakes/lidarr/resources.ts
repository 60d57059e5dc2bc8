import type { CatalogueAlbum, CatalogueArtist } from './catalogue.js';
import type { AlbumRecord, ArtistRecord, LidarrLibrary } from './library.js';
import { derivedMbid } from './names.js';

/**
 * Records → the JSON Lidarr v1 serves (camelCase, nulls omitted). Every shape here is checked against
 * Lidarr's OpenAPI document in openapi.test.ts.
 */
type Json = Record<string, unknown>;

const flac = { quality: { id: 6, name: 'FLAC' }, revision: { version: 1, real: 0, isRepack: false } };
export const flacQuality = flac;

function images(kind: 'artist' | 'album', id: number | undefined, mbid: string): Json[] {
  const remoteUrl = `https://coverartarchive.org/release-group/${mbid}/front.jpg`;
  if (kind === 'album') {
    return [{ url: id ? `/MediaCover/Albums/${id}/cover.jpg` : remoteUrl, coverType: 'cover', extension: '.jpg', remoteUrl }];
  }
  const url = id ? `/MediaCover/Artists/${id}/poster.jpg` : `https://assets.fanart.tv/fanart/${mbid}.jpg`;
  return [{ url, coverType: 'poster', extension: '.jpg', remoteUrl: `https://assets.fanart.tv/fanart/${mbid}.jpg` }];
}

const cleanName = (name: string) => name.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

function artistCore(a: {
  foreignArtistId: string;
  artistName: string;
  artistType: string;
  disambiguation: string;
  overview: string;
  genres: string[];
  status: string;
}): Json {
  return {
    status: a.status,
    ended: a.status === 'ended',
    artistName: a.artistName,
    foreignArtistId: a.foreignArtistId,
    mbId: a.foreignArtistId,
    overview: a.overview,
    artistType: a.artistType,
    disambiguation: a.disambiguation,
    links: [{ url: `https://musicbrainz.org/artist/${a.foreignArtistId}`, name: 'musicbrainz' }],
    genres: a.genres,
    cleanName: cleanName(a.artistName),
    sortName: a.artistName.toLowerCase().replace(/^the /, ''),
    ratings: { votes: 0, value: 0 },
  };
}

export function artistResource(lib: LidarrLibrary, artist: ArtistRecord): Json {
  let trackCount = 0;
  let trackFileCount = 0;
  let sizeOnDisk = 0;
  const albums = lib.albumsOf(artist);
  for (const album of albums) {
    trackCount += album.trackCount;
    trackFileCount += album.fileCount;
    sizeOnDisk += album.sizeOnDisk;
  }
  return {
    id: artist.id,
    ...artistCore(artist),
    images: images('artist', artist.id, artist.foreignArtistId),
    path: artist.path,
    qualityProfileId: artist.qualityProfileId,
    metadataProfileId: artist.metadataProfileId,
    monitored: artist.monitored,
    monitorNewItems: artist.monitorNewItems,
    rootFolderPath: artist.rootFolderPath,
    folder: artist.path.split('/').pop(),
    tags: artist.tags,
    added: artist.added,
    statistics: {
      albumCount: albums.length,
      trackFileCount,
      trackCount,
      totalTrackCount: trackCount,
      sizeOnDisk,
      percentOfTracks: trackCount ? Math.round((trackFileCount / trackCount) * 1000) / 10 : 0,
    },
  };
}

/** `/artist/lookup` result: the library's artist when added, else catalogue metadata without an id. */
export function artistLookupResource(lib: LidarrLibrary, entry: CatalogueArtist): Json {
  const existing = lib.artistByMbId(entry.foreignArtistId);
  if (existing) return { ...artistResource(lib, existing), remotePoster: remotePoster(entry.foreignArtistId) };
  return {
    ...artistCore(entry),
    images: images('artist', undefined, entry.foreignArtistId),
    remotePoster: remotePoster(entry.foreignArtistId),
    monitored: false,
    monitorNewItems: 'all',
    qualityProfileId: 0,
    metadataProfileId: 0,
    tags: [],
    added: '0001-01-01T00:00:00Z',
    folder: entry.artistName,
  };
}

const remotePoster = (mbid: string) => `https://assets.fanart.tv/fanart/${mbid}.jpg`;

const media = [{ mediumNumber: 1, mediumName: '', mediumFormat: 'Digital Media' }];

function release(albumId: number | undefined, a: { foreignReleaseId: string; title: string }, trackCount: number, duration: number): Json {
  return {
    ...(albumId ? { id: albumId, albumId } : {}),
    foreignReleaseId: a.foreignReleaseId,
    title: a.title,
    status: 'Official',
    duration,
    trackCount,
    media,
    mediumCount: 1,
    disambiguation: '',
    country: ['[Worldwide]'],
    label: ['Fake Records'],
    format: 'Digital Media',
    monitored: true,
  };
}

export function albumResource(lib: LidarrLibrary, album: AlbumRecord, options: { withArtist?: boolean } = {}): Json {
  const duration = lib.albumDurationMs(album);
  const artist = lib.artists.get(album.artistId);
  return {
    id: album.id,
    title: album.title,
    disambiguation: '',
    overview: '',
    artistId: album.artistId,
    foreignAlbumId: album.foreignAlbumId,
    monitored: album.monitored,
    anyReleaseOk: album.anyReleaseOk,
    profileId: album.profileId,
    duration,
    albumType: album.albumType,
    secondaryTypes: album.secondaryTypes,
    mediumCount: 1,
    ratings: { votes: 0, value: 0 },
    releaseDate: album.releaseDate,
    releases: [release(album.id, album, album.trackCount, duration)],
    genres: album.genres,
    media,
    ...(options.withArtist && artist ? { artist: artistResource(lib, artist) } : {}),
    images: images('album', album.id, album.foreignAlbumId),
    links: [],
    ...(album.lastSearchTime ? { lastSearchTime: album.lastSearchTime } : {}),
    statistics: {
      trackFileCount: album.fileCount,
      trackCount: album.trackCount,
      totalTrackCount: album.trackCount,
      sizeOnDisk: album.sizeOnDisk,
      percentOfTracks: album.trackCount ? Math.round((album.fileCount / album.trackCount) * 1000) / 10 : 0,
    },
  };
}

/** `/album/lookup` result: the library's album when added, else catalogue metadata with its artist. */
export function albumLookupResource(lib: LidarrLibrary, album: CatalogueAlbum, artist: CatalogueArtist): Json {
  const existing = lib.albumByMbId(album.foreignAlbumId);
  if (existing) return { ...albumResource(lib, existing, { withArtist: true }), remoteCover: remoteCover(album.foreignAlbumId) };
  const libraryArtist = lib.artistByMbId(artist.foreignArtistId);
  const duration = album.trackCount * 240_000;
  return {
    title: album.title,
    disambiguation: '',
    overview: '',
    ...(libraryArtist ? { artistId: libraryArtist.id } : {}),
    foreignAlbumId: album.foreignAlbumId,
    monitored: false,
    anyReleaseOk: true,
    profileId: 0,
    duration,
    albumType: album.albumType,
    secondaryTypes: album.secondaryTypes,
    mediumCount: 1,
    ratings: { votes: 0, value: 0 },
    releaseDate: album.releaseDate,
    releases: [release(undefined, album, album.trackCount, duration)],
    genres: album.genres,
    media,
    artist: artistLookupResource(lib, artist),
    images: images('album', undefined, album.foreignAlbumId),
    links: [],
    remoteCover: remoteCover(album.foreignAlbumId),
  };
}

const remoteCover = (mbid: string) => `https://coverartarchive.org/release-group/${mbid}/front.jpg`;

export function trackResource(lib: LidarrLibrary, album: AlbumRecord, index: number): Json {
  const t = lib.track(album, index);
  return {
    id: t.id,
    artistId: album.artistId,
    foreignTrackId: derivedMbid('track', album.foreignReleaseId, index),
    foreignRecordingId: derivedMbid('recording', album.foreignAlbumId, index),
    trackFileId: t.fileId,
    albumId: album.id,
    explicit: false,
    absoluteTrackNumber: index + 1,
    trackNumber: String(index + 1),
    title: t.title,
    duration: t.durationMs,
    mediumNumber: 1,
    hasFile: t.fileId !== 0,
    ratings: { votes: 0, value: 0 },
  };
}

export function trackFileResource(lib: LidarrLibrary, album: AlbumRecord, index: number): Json {
  return {
    id: album.fileIds?.[index] ?? 0,
    artistId: album.artistId,
    albumId: album.id,
    path: lib.trackFilePath(album, index),
    size: lib.fileSize(album, index),
    dateAdded: album.filesAdded ?? new Date(0).toISOString(),
    releaseGroup: 'FAKE',
    quality: flac,
    qualityWeight: 1200,
    customFormats: [],
    customFormatScore: 0,
    mediaInfo: { audioChannels: 2, audioBitRate: '1411 kbps', audioCodec: 'FLAC', audioBits: '16bit', audioSampleRate: '44.1kHz' },
    qualityCutoffNotMet: false,
  };
}

/** Lidarr's answer when a rule fails: a JSON array, one entry per failure. */
export function validationFailure(propertyName: string, errorMessage: string, attemptedValue: unknown, errorCode: string): Json[] {
  return [
    {
      propertyName,
      errorMessage,
      attemptedValue,
      severity: 'error',
      errorCode,
      formattedMessageArguments: [],
      formattedMessagePlaceholderValues: { PropertyName: propertyName, PropertyValue: attemptedValue },
    },
  ];
}
