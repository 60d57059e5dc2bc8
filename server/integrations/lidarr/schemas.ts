import { z } from 'zod';

/**
 * The Lidarr v1 resources this client reads, as zod schemas. Only the fields we rely on are
 * declared; every object is loose so unknown fields survive a GET → modify → PUT round trip
 * (Lidarr's PUT expects the full resource). Lidarr omits nulls, so most fields are optional.
 */

const str = z.string().nullish();
const int = z.number().int();

export const imageSchema = z.looseObject({
  url: str,
  coverType: z.string().optional(),
  extension: str,
  remoteUrl: str,
});

export const ratingsSchema = z.looseObject({ votes: int.optional(), value: z.number().optional() });

export const qualityModelSchema = z.looseObject({
  quality: z.looseObject({ id: int, name: str }).optional(),
  revision: z.looseObject({ version: int.optional(), real: int.optional(), isRepack: z.boolean().optional() }).optional(),
});

const statisticsFields = {
  trackFileCount: int.optional(),
  trackCount: int.optional(),
  totalTrackCount: int.optional(),
  sizeOnDisk: z.number().optional(),
  percentOfTracks: z.number().optional(),
};

export const artistStatisticsSchema = z.looseObject({ albumCount: int.optional(), ...statisticsFields });
export const albumStatisticsSchema = z.looseObject(statisticsFields);

export const monitorTypes = ['all', 'future', 'missing', 'existing', 'latest', 'first', 'none', 'unknown'] as const;
export const newItemMonitorTypes = ['all', 'none', 'new'] as const;

export const addArtistOptionsSchema = z.looseObject({
  monitor: z.enum(monitorTypes).optional(),
  albumsToMonitor: z.array(z.string()).nullish(),
  monitored: z.boolean().optional(),
  searchForMissingAlbums: z.boolean().optional(),
});

const artistFields = {
  artistName: z.string(),
  foreignArtistId: z.string(),
  mbId: str,
  status: z.string().optional(),
  ended: z.boolean().optional(),
  overview: str,
  artistType: str,
  disambiguation: str,
  links: z.array(z.looseObject({ url: str, name: str })).nullish(),
  images: z.array(imageSchema).nullish(),
  remotePoster: str,
  path: str,
  qualityProfileId: int.optional(),
  metadataProfileId: int.optional(),
  monitored: z.boolean().optional(),
  monitorNewItems: z.string().optional(),
  rootFolderPath: str,
  folder: str,
  genres: z.array(z.string()).nullish(),
  cleanName: str,
  sortName: str,
  tags: z.array(int).nullish(),
  added: z.string().optional(),
  ratings: ratingsSchema.optional(),
  statistics: artistStatisticsSchema.optional(),
};

/** An artist as Lidarr's library holds it. */
export const artistSchema = z.looseObject({ id: int, ...artistFields });
/** A lookup result: `id` only when the artist is already in the library. */
export const artistLookupSchema = z.looseObject({ id: int.optional(), ...artistFields });

export const mediumSchema = z.looseObject({ mediumNumber: int, mediumName: str, mediumFormat: str });

export const albumReleaseSchema = z.looseObject({
  id: int.optional(),
  albumId: int.optional(),
  foreignReleaseId: str,
  title: str,
  status: str,
  duration: int.optional(),
  trackCount: int.optional(),
  media: z.array(mediumSchema).nullish(),
  mediumCount: int.optional(),
  country: z.array(z.string()).nullish(),
  label: z.array(z.string()).nullish(),
  format: str,
  monitored: z.boolean().optional(),
});

const albumFields = {
  title: z.string(),
  disambiguation: str,
  overview: str,
  artistId: int.optional(),
  foreignAlbumId: z.string(),
  monitored: z.boolean().optional(),
  anyReleaseOk: z.boolean().optional(),
  profileId: int.optional(),
  duration: int.optional(),
  albumType: str,
  secondaryTypes: z.array(z.string()).nullish(),
  mediumCount: int.optional(),
  ratings: ratingsSchema.optional(),
  releaseDate: str,
  releases: z.array(albumReleaseSchema).nullish(),
  genres: z.array(z.string()).nullish(),
  media: z.array(mediumSchema).nullish(),
  artist: artistLookupSchema.optional(),
  images: z.array(imageSchema).nullish(),
  links: z.array(z.looseObject({ url: str, name: str })).nullish(),
  lastSearchTime: str,
  statistics: albumStatisticsSchema.optional(),
  remoteCover: str,
};

export const albumSchema = z.looseObject({ id: int, ...albumFields });
export const albumLookupSchema = z.looseObject({ id: int.optional(), ...albumFields });

export const trackSchema = z.looseObject({
  id: int,
  artistId: int,
  albumId: int,
  foreignTrackId: str,
  foreignRecordingId: str,
  trackFileId: int.optional(),
  explicit: z.boolean().optional(),
  absoluteTrackNumber: int.optional(),
  trackNumber: str,
  title: str,
  duration: int.optional(),
  mediumNumber: int.optional(),
  hasFile: z.boolean(),
  ratings: ratingsSchema.optional(),
});

export const trackFileSchema = z.looseObject({
  id: int,
  artistId: int,
  albumId: int,
  path: z.string(),
  size: z.number().optional(),
  dateAdded: z.string().optional(),
  sceneName: str,
  releaseGroup: str,
  quality: qualityModelSchema.optional(),
  qualityWeight: int.optional(),
  mediaInfo: z.looseObject({}).optional(),
  qualityCutoffNotMet: z.boolean().optional(),
});

export const rootFolderSchema = z.looseObject({
  id: int,
  name: str,
  path: z.string(),
  accessible: z.boolean().optional(),
  freeSpace: z.number().nullish(),
  totalSpace: z.number().nullish(),
  defaultMetadataProfileId: int.optional(),
  defaultQualityProfileId: int.optional(),
  defaultMonitorOption: z.string().optional(),
  defaultNewItemMonitorOption: z.string().optional(),
  defaultTags: z.array(int).nullish(),
});

export const qualityProfileSchema = z.looseObject({
  id: int,
  name: z.string(),
  upgradeAllowed: z.boolean().optional(),
  cutoff: int.optional(),
  items: z.array(z.looseObject({})).nullish(),
  minFormatScore: int.optional(),
  cutoffFormatScore: int.optional(),
  formatItems: z.array(z.looseObject({})).nullish(),
});

const profileItem = z.looseObject({ id: int.optional(), allowed: z.boolean() });
export const metadataProfileSchema = z.looseObject({
  id: int,
  name: z.string(),
  primaryAlbumTypes: z.array(profileItem).nullish(),
  secondaryAlbumTypes: z.array(profileItem).nullish(),
  releaseStatuses: z.array(profileItem).nullish(),
});

export const tagSchema = z.looseObject({ id: int, label: z.string() });

export const commandStatuses = ['queued', 'started', 'completed', 'failed', 'aborted', 'cancelled', 'orphaned'] as const;

export const commandSchema = z.looseObject({
  id: int,
  name: z.string(),
  commandName: str,
  message: str,
  body: z.looseObject({}).optional(),
  priority: z.string().optional(),
  status: z.enum(commandStatuses),
  result: z.string().optional(),
  queued: z.string().optional(),
  started: str,
  ended: str,
  duration: str,
  exception: str,
  trigger: z.string().optional(),
  stateChangeTime: str,
});

export const queueItemSchema = z.looseObject({
  id: int,
  artistId: int.nullish(),
  albumId: int.nullish(),
  quality: qualityModelSchema.optional(),
  size: z.number().optional(),
  sizeleft: z.number().optional(),
  timeleft: str,
  estimatedCompletionTime: str,
  added: str,
  title: str,
  status: str,
  trackedDownloadStatus: z.string().optional(),
  trackedDownloadState: z.string().optional(),
  statusMessages: z.array(z.looseObject({ title: str, messages: z.array(z.string()).nullish() })).nullish(),
  errorMessage: str,
  downloadId: str,
  protocol: z.string().optional(),
  downloadClient: str,
  indexer: str,
  outputPath: str,
  trackFileCount: int.optional(),
  trackHasFileCount: int.optional(),
  downloadForced: z.boolean().optional(),
});

export const historyEventTypes = [
  'unknown',
  'grabbed',
  'artistFolderImported',
  'trackFileImported',
  'downloadFailed',
  'trackFileDeleted',
  'trackFileRenamed',
  'albumImportIncomplete',
  'downloadImported',
  'trackFileRetagged',
  'downloadIgnored',
] as const;

export const historyItemSchema = z.looseObject({
  id: int,
  albumId: int.optional(),
  artistId: int.optional(),
  trackId: int.optional(),
  sourceTitle: str,
  quality: qualityModelSchema.optional(),
  date: z.string(),
  downloadId: str,
  eventType: z.string(),
  data: z.record(z.string(), z.string().nullable()).nullish(),
});

export function pageSchema<T extends z.ZodType>(record: T) {
  return z.looseObject({
    page: int,
    pageSize: int,
    sortKey: str,
    sortDirection: z.string().optional(),
    totalRecords: int,
    records: z.array(record).nullish(),
  });
}

export const systemStatusSchema = z.looseObject({
  appName: str,
  instanceName: str,
  version: z.string(),
  buildTime: z.string().optional(),
  isDocker: z.boolean().optional(),
  branch: str,
  urlBase: str,
  startTime: z.string().optional(),
});

/** Lidarr's 400 answer: one entry per failed rule. */
export const validationFailureSchema = z.looseObject({
  propertyName: str,
  errorMessage: z.string(),
  attemptedValue: z.unknown().optional(),
  severity: z.string().optional(),
  errorCode: str,
});

export type Artist = z.infer<typeof artistSchema>;
export type ArtistLookup = z.infer<typeof artistLookupSchema>;
export type AddArtistOptions = z.infer<typeof addArtistOptionsSchema>;
export type Album = z.infer<typeof albumSchema>;
export type AlbumLookup = z.infer<typeof albumLookupSchema>;
export type Track = z.infer<typeof trackSchema>;
export type TrackFile = z.infer<typeof trackFileSchema>;
export type RootFolder = z.infer<typeof rootFolderSchema>;
export type QualityProfile = z.infer<typeof qualityProfileSchema>;
export type MetadataProfile = z.infer<typeof metadataProfileSchema>;
export type Tag = z.infer<typeof tagSchema>;
export type Command = z.infer<typeof commandSchema>;
export type CommandStatus = (typeof commandStatuses)[number];
export type QueueItem = z.infer<typeof queueItemSchema>;
export type HistoryItem = z.infer<typeof historyItemSchema>;
export type HistoryEventType = (typeof historyEventTypes)[number];
export type SystemStatus = z.infer<typeof systemStatusSchema>;
export type ValidationFailure = z.infer<typeof validationFailureSchema>;
export interface Page<T> {
  page: number;
  pageSize: number;
  sortKey?: string | null;
  sortDirection?: string;
  totalRecords: number;
  records: T[];
}
