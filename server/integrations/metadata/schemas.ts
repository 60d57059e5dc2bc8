import { z } from 'zod';

/**
 * The Lidarr metadata API (SkyHook resources, as served by api.lidarr.audio and brainzmash): only
 * what we read. Its casing is mixed on purpose: artist and album documents are lower case, while
 * the album summaries in `Albums`, images, ratings and media are PascalCase.
 */
const str = z.string().nullish().transform((v) => v ?? '');
const strings = z.array(z.string()).nullish().transform((v) => v ?? []);

export const imageSchema = z.object({ CoverType: z.string().nullish(), Url: z.string() }).loose();
export const linkSchema = z.object({ type: z.string().nullish().transform((v) => v ?? ''), target: z.string() }).loose();
export const ratingSchema = z.object({ Count: z.number().nullish(), Value: z.number().nullish() }).loose();

/** An album summary inside an artist document. */
export const albumSummarySchema = z
  .object({
    Id: z.string(),
    Title: z.string(),
    Type: z.string().nullish(),
    SecondaryTypes: strings,
    ReleaseDate: z.string().nullish(),
    ReleaseStatuses: strings,
  })
  .loose();

export const artistSchema = z
  .object({
    id: z.string(),
    artistname: z.string(),
    sortname: str,
    disambiguation: str,
    overview: str,
    type: z.string().nullish(),
    status: z.string().nullish(),
    genres: strings,
    images: z.array(imageSchema).nullish().transform((v) => v ?? []),
    links: z.array(linkSchema).nullish().transform((v) => v ?? []),
    rating: ratingSchema.nullish(),
    Albums: z.array(albumSummarySchema).nullish().transform((v) => v ?? []),
  })
  .loose();
export type SkyArtist = z.infer<typeof artistSchema>;

export const trackSchema = z
  .object({
    id: z.string(),
    recordingid: z.string(),
    trackname: z.string(),
    tracknumber: z.union([z.string(), z.number()]).nullish().transform((v) => (v === null || v === undefined ? '' : String(v))),
    trackposition: z.number().nullish().transform((v) => v ?? 0),
    mediumnumber: z.number().nullish().transform((v) => v ?? 1),
    durationms: z.number().nullish(),
    artistid: z.string().nullish(),
  })
  .loose();

export const releaseSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    status: z.string().nullish(),
    releasedate: z.string().nullish(),
    country: strings,
    label: strings,
    media: z
      .array(z.object({ Format: z.string().nullish(), Name: z.string().nullish(), Position: z.number().nullish() }).loose())
      .nullish()
      .transform((v) => v ?? []),
    track_count: z.number().nullish(),
    tracks: z.array(trackSchema).nullish().transform((v) => v ?? []),
  })
  .loose();

/** An artist as an album document lists it (the credited artists, without their albums). */
const albumArtistSchema = z.object({ id: z.string(), artistname: z.string(), sortname: str }).loose();

export const albumSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    type: z.string().nullish(),
    secondarytypes: strings,
    releasedate: z.string().nullish(),
    artistid: z.string(),
    artists: z.array(albumArtistSchema).nullish().transform((v) => v ?? []),
    images: z.array(imageSchema).nullish().transform((v) => v ?? []),
    genres: strings,
    rating: ratingSchema.nullish(),
    releases: z.array(releaseSchema).nullish().transform((v) => v ?? []),
  })
  .loose();
export type SkyAlbum = z.infer<typeof albumSchema>;

export const artistSearchSchema = z.array(artistSchema);
export const albumSearchSchema = z.array(albumSchema);
