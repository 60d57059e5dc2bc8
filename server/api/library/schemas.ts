import { z } from 'zod';
import type { Same } from '../../http/same.js';
import type { albumEntry, artistEntry, fileEntry, trackEntry } from './present.js';

const boolish = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const id = z.coerce.number().int().positive();

export const canonicalQuery = z.object({
  kind: z.enum(['artists', 'albums', 'tracks', 'genres'], { error: 'kind must be artists, albums, tracks or genres' }),
  pageSize: z.coerce.number({ error: 'pageSize is required' }).int().min(1).max(100),
  page: z.coerce.number().int().min(1).default(1),
  source: z.enum(['all', 'aurral', 'lidarr']).default('all'),
  availableOnly: boolish.optional(),
  query: z.string().max(200).optional(),
  genre: z.string().max(200).optional(),
  sort: z.enum(['name', 'newest', 'added', 'year', 'artist', 'album', 'count']).optional(),
  direction: z.enum(['asc', 'desc']).optional(),
  artistId: id.optional(),
  albumId: id.optional(),
  /** albums: other artists' albums this artist has tracks on; tracks: this artist's tracks on them. */
  appearsOn: id.optional(),
});

/** decisions §12: ReplayGain 2 values of the playable file, only those known (gains in dB, peaks linear). */
export const replayGainSchema = z.object({
  trackGain: z.number().optional(),
  albumGain: z.number().optional(),
  trackPeak: z.number().min(0).optional(),
  albumPeak: z.number().min(0).optional(),
});

const sources = z.array(z.enum(['aurral', 'lidarr']));
/** Which of the two managers a client should treat as the owner (the reference's wire values; present.ts types it as a string). */
const managedBy = z.string();
/** A library artist (present.ts artistEntry): every field, so the generated wire types describe it whole. */
export const artistEntrySchema = z.object({
  id: z.number(),
  identityKey: z.string(),
  name: z.string(),
  artistName: z.string(),
  mbid: z.string().nullable(),
  foreignArtistId: z.string().nullable(),
  monitored: z.boolean(),
  monitorOption: z.string(),
  addedAt: z.string().nullable(),
  available: z.boolean(),
  sources,
  managedBy,
  imageUrl: z.string().nullable(),
  statistics: z.object({
    albumCount: z.number().describe("the artist's own albums"),
    appearsOnCount: z.number().describe("other artists' albums it has tracks on (compilations)"),
    trackCount: z.number(),
    availableTrackCount: z.number(),
    sizeOnDisk: z.number(),
  }),
  userFavorite: z.boolean(),
});
/** A library album (present.ts albumEntry): every field. */
export const albumEntrySchema = z.object({
  id: z.number(),
  identityKey: z.string(),
  title: z.string(),
  albumName: z.string(),
  artistId: z.number(),
  artistName: z.string(),
  mbid: z.string().nullable(),
  foreignAlbumId: z.string().nullable(),
  releaseMbid: z.string().nullable(),
  releaseDate: z.string().nullable(),
  year: z.number().nullable(),
  monitored: z.boolean(),
  albumType: z.string(),
  secondaryTypes: z.array(z.string()),
  addedAt: z.string().nullable(),
  durationMs: z.number(),
  available: z.boolean(),
  sources,
  managedBy,
  imageUrl: z.string().nullable(),
  statistics: z.object({ trackCount: z.number(), trackFileCount: z.number(), sizeOnDisk: z.number(), percentOfTracks: z.number() }),
  userFavorite: z.boolean(),
});
/** A media file of a track (present.ts fileEntry). */
export const fileEntrySchema = z.object({
  id: z.number(),
  source: z.enum(['aurral', 'lidarr']),
  format: z.string().nullable(),
  contentType: z.string().nullable(),
  codec: z.string().nullable(),
  size: z.number(),
  durationMs: z.number(),
  bitrate: z.number().nullable(),
  sampleRate: z.number().nullable(),
  bitDepth: z.number().nullable(),
  channels: z.number().nullable(),
  lossless: z.boolean(),
  available: z.boolean(),
  tagError: z.string().nullable(),
  addedAt: z.string().nullable(),
});
/** A library track (present.ts trackEntry): every field, so the generated wire types describe it whole. */
export const trackEntrySchema = z.object({
  id: z.number(),
  identityKey: z.string(),
  title: z.string(),
  trackName: z.string(),
  artistName: z.string(),
  artistId: z.number().nullable(),
  albumId: z.number().nullable(),
  albumTitle: z.string().nullable(),
  mbid: z.string().nullable(),
  discNumber: z.number(),
  trackNumber: z.number(),
  year: z.number().nullable(),
  durationMs: z.number(),
  available: z.boolean().describe('the library has a playable file of it'),
  hasFile: z.boolean(),
  size: z.number(),
  quality: z.object({ name: z.string(), lossless: z.boolean(), bitrate: z.number().nullable() }).nullable(),
  sources: z.array(z.enum(['aurral', 'lidarr'])),
  imageUrl: z.string().nullable(),
  streamUrl: z.string(),
  files: z.array(fileEntrySchema),
  replayGain: replayGainSchema,
  userFavorite: z.boolean(),
});
const genreEntrySchema = z.object({ id: z.number(), name: z.string(), artistCount: z.number(), albumCount: z.number(), trackCount: z.number() });

export const canonicalPageSchema = z.object({
  kind: z.string(),
  page: z.number(),
  pageSize: z.number(),
  total: z.number(),
  hasMore: z.boolean(),
  items: z.array(z.object({}).loose()),
  artists: z.array(artistEntrySchema),
  albums: z.array(albumEntrySchema),
  tracks: z.array(trackEntrySchema),
  genres: z.array(genreEntrySchema),
});

export const artistsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(10000).default(10000),
  offset: z.coerce.number().int().min(0).default(0),
});
export const mbidParams = z.object({ mbid: z.string().min(1).max(100) });
export const idParams = z.object({ id: z.string().min(1).max(100) });
export const albumsQuery = z.object({ artistId: z.string({ error: 'artistId is required' }).min(1).max(100) });
export const tracksQuery = z.object({ albumId: z.string().max(100).optional(), releaseGroupMbid: z.string().max(100).optional() });
export const mbidsBody = z.object({ mbids: z.array(z.string().min(1).max(100)).max(1000) });

export const artistLookupSchema = z.object({
  exists: z.boolean(),
  canonical: z.boolean(),
  artist: artistEntrySchema.nullable(),
  albums: z.array(albumEntrySchema),
  libraryArtistId: z.string().nullable(),
});
export const albumLookupSchema = z.object({
  inLibrary: z.boolean(),
  monitored: z.boolean(),
  libraryAlbumId: z.string().nullable(),
  libraryArtistId: z.string().nullable(),
  status: z.string(),
  trackCount: z.number(),
  trackFileCount: z.number(),
  ownedTrackMbids: z.array(z.string()),
});

export const refreshBody = z.object({ mode: z.enum(['quick', 'full']).default('quick') }).prefault({});
export const jobParams = z.object({ jobId: id });
export const scanJobSchema = z.object({
  jobId: z.string(),
  status: z.enum(['queued', 'running', 'completed', 'failed']),
  mode: z.enum(['quick', 'full']),
  filesSeen: z.number(),
  filesIndexed: z.number(),
  filesSkipped: z.number(),
  filesFailed: z.number(),
  filesMissing: z.number(),
  filesMoved: z.number(),
  errors: z.array(z.object({ path: z.string(), reason: z.string() })),
  error: z.string().nullable(),
  requestedAt: z.string(),
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
});

export const favoriteBody = z.object({
  kind: z.enum(['artist', 'album', 'track']),
  id: z.coerce.number().int().positive(),
  favorite: z.boolean().default(true),
});
export const favoritesSchema = z.object({
  artists: z.array(artistEntrySchema),
  albums: z.array(albumEntrySchema),
  tracks: z.array(trackEntrySchema),
});

export const queueQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(50),
});
export const queueSaveBody = z
  .object({
    trackIds: z.array(z.number().int().positive()).max(5000),
    currentIndex: z.number().int().min(0).default(0),
    positionMs: z.number().int().min(0).default(0),
    client: z.string().trim().min(1).max(64).default('Tonearm web'),
  })
  .strict();
export const queueSchema = z.object({
  page: z.number(),
  pageSize: z.number(),
  total: z.number(),
  hasMore: z.boolean(),
  currentIndex: z.number(),
  positionMs: z.number(),
  changedAt: z.string().nullable(),
  changedBy: z.string().nullable(),
  items: z.array(z.object({ position: z.number(), track: trackEntrySchema.nullable() })),
});

export const streamParams = z.object({ songId: id });
export const canonicalStreamParams = z.object({ trackId: id });
export const fileStreamParams = z.object({ albumId: id, trackId: id });

/** Fail to compile when present.ts and these schemas disagree on a field. */
export const schemasMatchPresenters = {
  artist: true satisfies Same<z.infer<typeof artistEntrySchema>, ReturnType<typeof artistEntry>>,
  album: true satisfies Same<z.infer<typeof albumEntrySchema>, ReturnType<typeof albumEntry>>,
  file: true satisfies Same<z.infer<typeof fileEntrySchema>, ReturnType<typeof fileEntry>>,
  track: true satisfies Same<z.infer<typeof trackEntrySchema>, ReturnType<typeof trackEntry>>,
};
