import { z } from 'zod';
import type { AppContext } from '../../context.js';
import {
  artistDetail,
  frontCover,
  releaseGroupDetail,
  releaseGroupEntry,
  releaseTracks,
  representativeRelease } from '../../domain/metadata/present.js';
import { NotFoundError } from '../../domain/errors.js';
import { defineRoute } from '../../http/route.js';
import type { Same } from '../../http/same.js';

export const mbidSchema = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a MusicBrainz id')
  .transform((s) => s.toLowerCase());
export const mbidParams = z.object({ mbid: mbidSchema });

export const releaseGroupEntrySchema = z.object({
  id: z.string(),
  title: z.string(),
  'primary-type': z.string(),
  'secondary-types': z.array(z.string()),
  'first-release-date': z.string().nullable(),
  artistName: z.string(),
  inLibrary: z.boolean(),
});

export const artistDetailSchema = z.object({
  id: z.string(),
  name: z.string(),
  sortName: z.string(),
  type: z.string().nullable(),
  country: z.string().nullable(),
  disambiguation: z.string(),
  lifeSpan: z.object({ begin: z.string().nullable(), end: z.string().nullable() }),
  tags: z.array(z.string()),
  genres: z.array(z.string()),
  links: z.array(z.object({ type: z.string(), url: z.string() })),
  'release-groups': z.array(releaseGroupEntrySchema),
  'appears-on-release-groups': z.array(releaseGroupEntrySchema),
  appearsOnLoaded: z.boolean(),
  inLibrary: z.boolean(),
  libraryArtistId: z.string().nullable(),
});

const releaseGroupDetailSchema = z.object({
  id: z.string(),
  title: z.string(),
  'primary-type': z.string(),
  'secondary-types': z.array(z.string()),
  'first-release-date': z.string().nullable(),
  'artist-credit': z.array(z.object({ name: z.string(), joinphrase: z.string(), artist: z.object({ id: z.string(), name: z.string() }) })),
  releases: z.array(z.object({ id: z.string(), title: z.string(), status: z.string().nullable(), date: z.string().nullable(), country: z.string().nullable() })),
  genres: z.array(z.string()),
  tags: z.array(z.string()),
  rating: z.number().nullable(),
  coverUrl: z.string().nullable(),
  overview: z.string(),
  inLibrary: z.boolean(),
});

const trackSchema = z.object({
  id: z.string(),
  mbid: z.string(),
  title: z.string(),
  trackNumber: z.number(),
  number: z.string(),
  discNumber: z.number(),
  durationMs: z.number().nullable(),
  artistName: z.string(),
  inLibrary: z.boolean(),
});

/** Fail to compile when a schema and what domain/metadata/present.ts answers disagree on a field. */
export const schemasMatchDomain = {
  releaseGroupEntry: true satisfies Same<z.infer<typeof releaseGroupEntrySchema>, ReturnType<typeof releaseGroupEntry>>,
  artistDetail: true satisfies Same<z.infer<typeof artistDetailSchema>, ReturnType<typeof artistDetail>>,
  releaseGroupDetail: true satisfies Same<z.infer<typeof releaseGroupDetailSchema>, ReturnType<typeof releaseGroupDetail>>,
  releaseTracks: true satisfies Same<z.infer<typeof trackSchema>, ReturnType<typeof releaseTracks>[number]>,
};

/** Which of these release-group MBIDs the library has (by group or release MBID). */
export function ownedGroupsOf(ctx: AppContext, ids: string[]): Set<string> {
  return new Set(ctx.library.reader.albumsByMbids(ids).flatMap((a) => [a.mbid, a.release_mbid].filter((x): x is string => !!x)));
}

/** GET /api/artists/:mbid (also the first event of the artist stream). */
export async function artistPage(ctx: AppContext, mbid: string, mode: 'core' | 'full') {
  const metadata = ctx.metadata;
  const doc = await metadata.artist(mbid);
  const appears = mode === 'core' ? null : await metadata.appearsOn(mbid).catch(() => null);
  const owned = ownedGroupsOf(ctx, [...doc.releaseGroups, ...(appears ?? [])].map((g) => g.id));
  const libraryArtist = ctx.library.reader.artistByMbid(doc.artist.id);
  return artistDetail(
    doc.artist,
    doc.releaseGroups.map((g) => releaseGroupEntry(g, owned)),
    appears?.map((g) => releaseGroupEntry(g, owned)) ?? null,
    { inLibrary: !!libraryArtist, libraryArtistId: libraryArtist?.id ?? null },
  );
}

/** api.md 4.6: artists and release groups from the metadata layer, marked against the library. */
export function artistRoutes(ctx: AppContext) {
  const metadata = ctx.metadata;
  const ownedGroups = (ids: string[]) => ownedGroupsOf(ctx, ids);

  /** A cover is decoration: an archive outage or a missing cover never fails the page. */
  const coverOf = async (mbid: string) => ctx.remoteImages.proxyUrl(frontCover(await metadata.cover(mbid).catch(() => null)));

  return [
    defineRoute({
      method: 'get',
      path: '/api/artists/:mbid',
      summary: 'Artist details with release groups and appears-on release groups (mode=core skips appears-on)',
      tag: 'artists',
      access: 'authenticated',
      params: mbidParams,
      query: z.object({ mode: z.enum(['core', 'full']).optional() }),
      response: artistDetailSchema,
      handler: ({ params, query }) => artistPage(ctx, params.mbid, query.mode ?? 'full'),
    }),
    defineRoute({
      method: 'get',
      path: '/api/artists/release-group/:mbid',
      summary: 'Release-group details with its releases and cover',
      tag: 'artists',
      access: 'authenticated',
      params: mbidParams,
      response: releaseGroupDetailSchema,
      handler: async ({ params }) => {
        const group = await metadata.releaseGroup(params.mbid);
        return releaseGroupDetail(group, await coverOf(group.id), ownedGroups([group.id]).has(group.id));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/artists/release-group/:mbid/tracks',
      summary: "Tracks of the release group's earliest official release, marked when the library has them",
      tag: 'artists',
      access: 'authenticated',
      params: mbidParams,
      response: z.object({ releaseId: z.string(), tracks: z.array(trackSchema) }),
      handler: async ({ params }) => {
        const group = await metadata.releaseGroup(params.mbid);
        const releaseId = representativeRelease(group);
        if (!releaseId) throw new NotFoundError('Release not found', 'The release group has no releases');
        const release = await metadata.release(releaseId);
        const recordingIds = release.media.flatMap((m) => m.tracks.map((t) => t.recording.id));
        return { releaseId, tracks: releaseTracks(release, metadata.cache.trackMbidsPresent(recordingIds)) };
      },
    }),
  ];
}
