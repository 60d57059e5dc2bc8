import { z } from 'zod';

/** MusicBrainz WS/2 JSON shapes: only what we read, unknown fields kept out of the way. */
const artistRef = z.object({ id: z.string(), name: z.string(), 'sort-name': z.string().optional() }).loose();

export const artistCreditSchema = z.array(
  z.object({ name: z.string(), joinphrase: z.string().optional().default(''), artist: artistRef }).loose(),
);

const tag = z.object({ name: z.string(), count: z.number().optional().default(0) }).loose();
const genre = z.object({ name: z.string(), count: z.number().optional().default(0), id: z.string().optional() }).loose();

export const releaseGroupSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    'primary-type': z.string().nullable().optional(),
    'secondary-types': z.array(z.string()).optional().default([]),
    'first-release-date': z.string().nullable().optional(),
    'artist-credit': artistCreditSchema.optional().default([]),
    score: z.number().optional(),
    tags: z.array(tag).optional(),
    genres: z.array(genre).optional(),
    releases: z
      .array(z.object({ id: z.string(), title: z.string(), status: z.string().nullable().optional(), date: z.string().nullable().optional(), country: z.string().nullable().optional() }).loose())
      .optional(),
    rating: z.object({ value: z.number().nullable().optional(), 'votes-count': z.number().optional() }).loose().optional(),
  })
  .loose();
export type MbReleaseGroup = z.infer<typeof releaseGroupSchema>;

export const artistSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    'sort-name': z.string().optional(),
    type: z.string().nullable().optional(),
    country: z.string().nullable().optional(),
    disambiguation: z.string().optional().default(''),
    score: z.number().optional(),
    'life-span': z.object({ begin: z.string().nullable().optional(), end: z.string().nullable().optional(), ended: z.boolean().nullable().optional() }).loose().optional(),
    tags: z.array(tag).optional().default([]),
    genres: z.array(genre).optional().default([]),
    relations: z.array(z.object({ type: z.string(), url: z.object({ resource: z.string() }).loose().optional() }).loose()).optional().default([]),
    'release-groups': z.array(releaseGroupSchema).optional(),
  })
  .loose();
export type MbArtist = z.infer<typeof artistSchema>;

export const artistSearchSchema = z.object({ count: z.number(), offset: z.number(), artists: z.array(artistSchema) }).loose();
export const releaseGroupSearchSchema = z.object({ count: z.number(), offset: z.number(), 'release-groups': z.array(releaseGroupSchema) }).loose();
export const releaseGroupBrowseSchema = z
  .object({ 'release-group-count': z.number(), 'release-group-offset': z.number(), 'release-groups': z.array(releaseGroupSchema) })
  .loose();

const trackSchema = z
  .object({
    id: z.string(),
    number: z.string().optional().default(''),
    position: z.number().optional().default(0),
    title: z.string(),
    length: z.number().nullable().optional(),
    recording: z.object({ id: z.string(), title: z.string().optional(), length: z.number().nullable().optional() }).loose(),
    'artist-credit': artistCreditSchema.optional(),
  })
  .loose();

export const releaseSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    status: z.string().nullable().optional(),
    date: z.string().nullable().optional(),
    country: z.string().nullable().optional(),
    'release-group': releaseGroupSchema.optional(),
    'artist-credit': artistCreditSchema.optional().default([]),
    media: z
      .array(z.object({ position: z.number().optional().default(1), format: z.string().nullable().optional(), 'track-count': z.number().optional(), tracks: z.array(trackSchema).optional().default([]) }).loose())
      .optional()
      .default([]),
  })
  .loose();
export type MbRelease = z.infer<typeof releaseSchema>;

export const recordingSearchSchema = z
  .object({
    count: z.number(),
    offset: z.number(),
    recordings: z.array(
      z
        .object({
          id: z.string(),
          title: z.string(),
          length: z.number().nullable().optional(),
          score: z.number().optional(),
          'artist-credit': artistCreditSchema.optional().default([]),
          releases: z.array(releaseSchema.partial({ media: true })).optional().default([]),
        })
        .loose(),
    ),
  })
  .loose();

/** One recording looked up by its MBID. */
export const recordingSchema = z
  .object({ id: z.string(), title: z.string(), length: z.number().nullable().optional(), 'artist-credit': artistCreditSchema.optional().default([]) })
  .loose();
export type MbRecording = z.infer<typeof recordingSchema>;
