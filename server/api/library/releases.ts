import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { defineRoute } from '../../http/route.js';

const day = (t: number) => new Date(t).toISOString().slice(0, 10);

/** api.md 4.5 `recent-releases`: what library artists released lately that the library lacks. */
export function recentReleaseRoutes(ctx: AppContext) {
  const metadata = ctx.metadata;
  return [
    defineRoute({
      method: 'get',
      path: '/api/library/recent-releases',
      summary: 'Release groups of library artists from the last months that the library lacks (from the metadata cache)',
      tag: 'library',
      access: 'authenticated',
      query: z.object({
        months: z.coerce.number().int().min(1).max(24).default(6),
        limit: z.coerce.number().int().min(1).max(200).default(50),
      }),
      response: z.object({
        since: z.string(),
        items: z.array(
          z.object({
            id: z.string(),
            title: z.string(),
            'primary-type': z.string().nullable(),
            'secondary-types': z.array(z.string()),
            'first-release-date': z.string(),
            artistMbid: z.string(),
            artistName: z.string(),
            libraryArtistId: z.string(),
            inLibrary: z.literal(false),
          }),
        ),
      }),
      handler: ({ query }) => {
        const now = ctx.clock.now();
        const since = new Date(now);
        since.setUTCMonth(since.getUTCMonth() - query.months);
        const rows = metadata.cache.recentReleasesMissing(day(since.getTime()), day(now), query.limit);
        return {
          since: day(since.getTime()),
          items: rows.map((r) => ({
            id: r.mbid,
            title: r.title,
            'primary-type': r.primary_type,
            'secondary-types': JSON.parse(r.secondary_types) as string[],
            'first-release-date': r.first_release_date,
            artistMbid: r.artist_mbid,
            artistName: r.artist_name,
            libraryArtistId: String(r.library_artist_id),
            inLibrary: false as const,
          })),
        };
      },
    }),
  ];
}
