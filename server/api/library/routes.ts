import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { favorites, playQueues, type FavoriteKind } from '../../db/libraryUserData.js';
import type { AlbumRow, ArtistRow } from '../../db/libraryReads.js';
import { isUserAccount, type Principal } from '../../domain/auth/principal.js';
import { NotFoundError } from '../../domain/errors.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { sendMedia } from '../../library/stream.js';
import { albumEntry, artistEntry, genreEntry, trackEntry } from './present.js';
import * as s from './schemas.js';
import { isoTime } from '../../domain/timestamps.js';

const iso = (ms: number | null) => isoTime(ms) ?? null;
/** Tracks read for an artist's appearances in one answer; the canonical page `appearsOn` pages them all. */
const APPEARANCE_TRACKS = 1000;

export function libraryRoutes(ctx: AppContext): RouteDefinition[] {
  const library = ctx.library;
  const listening = ctx.listening;
  const reader = library.reader;
  const db = ctx.db;

  const favoriteMap = (principal: Principal | null, kind: FavoriteKind, ids: number[]) =>
    principal && isUserAccount(principal) ? favorites.idsAmong(db, principal.userId, kind, ids) : new Map<number, number>();

  const tracksWithFiles = (principal: Principal | null, rows: import('../../db/libraryReads.js').TrackRow[]) => {
    const files = reader.filesOfTracks(rows.map((r) => r.id));
    const fav = favoriteMap(principal, 'track', rows.map((r) => r.id));
    return rows.map((r) => trackEntry(r, files.get(r.id) ?? [], fav.get(r.id)));
  };
  const artistsOut = (principal: Principal | null, rows: ArtistRow[]) => {
    const fav = favoriteMap(principal, 'artist', rows.map((r) => r.id));
    return rows.map((r) => artistEntry(r, fav.get(r.id)));
  };
  const albumsOut = (principal: Principal | null, rows: AlbumRow[]) => {
    const fav = favoriteMap(principal, 'album', rows.map((r) => r.id));
    return rows.map((r) => albumEntry(r, fav.get(r.id)));
  };
  /** A path id is a library id (digits) or an MBID. */
  const findArtist = (key: string) => (/^\d+$/.test(key) ? reader.artist(Number(key)) : reader.artistByMbid(key));
  const findAlbum = (key: string) => (/^\d+$/.test(key) ? reader.album(Number(key)) : reader.albumByMbid(key));

  const stream = (resolve: (params: any) => { path: string; mime: string }) =>
    async ({ req, res, params }: { req: any; res: any; params: any }) => {
      const file = resolve(params);
      const sent = await sendMedia(req, res, file);
      if (!sent) throw new NotFoundError('Media file not found');
      return undefined;
    };

  /** One page of the user's saved queue, with each entry's track hydrated. */
  const queuePage = (principal: Principal, page: number, pageSize: number) => {
    const state = playQueues.state(db, principal.userId);
    const entries = state ? playQueues.page(db, principal.userId, (page - 1) * pageSize, pageSize) : [];
    const rows = entries.map((e) => reader.track(e.trackId)).filter((t) => t !== undefined);
    const byId = new Map(tracksWithFiles(principal, rows).map((t) => [t.id, t]));
    const total = state?.total ?? 0;
    return {
      page,
      pageSize,
      total,
      hasMore: page * pageSize < total,
      currentIndex: state?.currentIndex ?? 0,
      positionMs: state?.positionMs ?? 0,
      changedAt: iso(state?.changedAt ?? null),
      changedBy: state?.changedBy ?? null,
      items: entries.map((e) => ({ position: e.position, track: byId.get(e.trackId) ?? null })),
    };
  };

  return [
    defineRoute({
      method: 'get',
      path: '/api/library/canonical',
      summary: 'Bounded canonical page of artists, albums, tracks or genres',
      tag: 'library',
      access: 'authenticated',
      query: s.canonicalQuery,
      invalidCode: 'INVALID_QUERY',
      response: s.canonicalPageSchema,
      handler: ({ query, principal }) => {
        const q = { ...query, availableOnly: query.availableOnly ?? false };
        const result = library.canonicalPage(q);
        let items: unknown[];
        if (result.kind === 'artists') items = artistsOut(principal, result.rows);
        else if (result.kind === 'albums') items = albumsOut(principal, result.rows);
        else if (result.kind === 'tracks') items = tracksWithFiles(principal, result.rows);
        else items = result.rows.map((g) => genreEntry(g, q.availableOnly));
        const empty: never[] = [];
        return {
          kind: query.kind,
          page: query.page,
          pageSize: query.pageSize,
          total: result.total,
          hasMore: query.page * query.pageSize < result.total,
          items,
          artists: result.kind === 'artists' ? items : empty,
          albums: result.kind === 'albums' ? items : empty,
          tracks: result.kind === 'tracks' ? items : empty,
          genres: result.kind === 'genres' ? items : empty,
        } as z.infer<typeof s.canonicalPageSchema>;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/library/artists',
      summary: 'Library artists by name (limit 1–10000)',
      tag: 'library',
      access: 'authenticated',
      query: s.artistsQuery,
      response: z.array(s.artistEntrySchema),
      handler: ({ query, principal }) => artistsOut(principal, reader.artists(query.limit, query.offset)),
    }),
    defineRoute({
      method: 'get',
      path: '/api/library/artists/:mbid',
      summary: "One library artist by MBID (or library id) with its albums and the albums it appears on, with its tracks there",
      tag: 'library',
      access: 'authenticated',
      params: s.mbidParams,
      response: s.artistEntrySchema.extend({
        albums: z.array(s.albumEntrySchema),
        appearsOn: z.array(s.albumEntrySchema.extend({ tracks: z.array(s.trackEntrySchema) })),
      }),
      handler: ({ params, principal }) => {
        const artist = findArtist(params.mbid);
        if (!artist) throw new NotFoundError('Artist not found');
        const appearances = reader.appearancesOfArtist(artist.id, APPEARANCE_TRACKS);
        const tracks = new Map(
          tracksWithFiles(principal, reader.tracksByIds(appearances.flatMap((a) => a.trackIds))).map((t) => [t.id, t]),
        );
        const appearsOn = albumsOut(principal, appearances.map((a) => a.album)).map((album, i) => ({
          ...album,
          tracks: appearances[i]!.trackIds.map((id) => tracks.get(id)).filter((t) => t !== undefined),
        }));
        return { ...artistsOut(principal, [artist])[0]!, albums: albumsOut(principal, reader.albumsOfArtist(artist.id)), appearsOn };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/library/albums',
      summary: "An artist's albums (artistId: library id or MBID)",
      tag: 'library',
      access: 'authenticated',
      query: s.albumsQuery,
      response: z.array(s.albumEntrySchema),
      handler: ({ query, principal }) => {
        const artist = findArtist(query.artistId);
        return artist ? albumsOut(principal, reader.albumsOfArtist(artist.id)) : [];
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/library/albums/:id',
      summary: 'One album (library id or MBID) with its tracks',
      tag: 'library',
      access: 'authenticated',
      params: s.idParams,
      response: s.albumEntrySchema.extend({ tracks: z.array(s.trackEntrySchema) }),
      handler: ({ params, principal }) => {
        const album = findAlbum(params.id);
        if (!album) throw new NotFoundError('Album not found');
        return { ...albumsOut(principal, [album])[0]!, tracks: tracksWithFiles(principal, reader.tracksOfAlbum(album.id)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/library/tracks',
      summary: 'Tracks of an album (albumId or releaseGroupMbid); no filter gives []',
      tag: 'library',
      access: 'authenticated',
      query: s.tracksQuery,
      response: z.array(s.trackEntrySchema),
      handler: ({ query, principal }) => {
        const key = query.albumId ?? query.releaseGroupMbid;
        if (!key) return [];
        const album = query.albumId ? findAlbum(query.albumId) : reader.albumByMbid(query.releaseGroupMbid!);
        return album ? tracksWithFiles(principal, reader.tracksOfAlbum(album.id)) : [];
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/library/tracks/:id',
      summary: 'Delete a track file inside a music folder; prune records when no media remains',
      tag: 'library',
      access: { permission: 'deleteAlbum' },
      params: z.object({ id: z.coerce.number().int().positive() }),
      response: z.object({ success: z.boolean(), deletedFiles: z.number(), pruned: z.boolean() }),
      handler: ({ params }) => ({ success: true, ...library.deleteTrack(params.id) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/library/refresh',
      summary: 'Queue a library scan (quick or full; administrators only; joins a queued scan); returns the job id',
      tag: 'library',
      access: 'authenticated',
      body: s.refreshBody,
      status: 202,
      response: z.object({ jobId: z.string(), status: z.string(), mode: z.enum(['quick', 'full']) }),
      handler: ({ principal, body }) => {
        const id = library.requestScan(principal!, body.mode, 'api');
        const job = library.scanJob(id);
        return { jobId: String(id), status: job.status, mode: job.mode };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/library/refresh/:jobId',
      summary: 'Status, counts and errors of a library scan',
      tag: 'library',
      access: 'authenticated',
      params: s.jobParams,
      response: s.scanJobSchema,
      handler: ({ params }) => {
        const run = library.scanJob(params.jobId);
        return {
          jobId: String(run.id),
          status: run.status,
          mode: run.mode,
          filesSeen: run.filesSeen,
          filesIndexed: run.filesIndexed,
          filesSkipped: run.filesSkipped,
          filesFailed: run.filesFailed,
          filesMissing: run.filesMissing,
          filesMoved: run.filesMoved,
          errors: run.errors,
          error: run.error,
          requestedAt: iso(run.requestedAt),
          startedAt: iso(run.startedAt),
          completedAt: iso(run.completedAt),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/library/lookup/:mbid',
      summary: 'Is an artist (MBID) in the library',
      tag: 'library',
      access: 'authenticated',
      params: s.mbidParams,
      response: s.artistLookupSchema,
      handler: ({ params, principal }) => {
        const artist = reader.artistByMbid(params.mbid);
        if (!artist) return { exists: false, canonical: false, artist: null, albums: [], libraryArtistId: null };
        return {
          exists: true,
          canonical: true,
          artist: artistsOut(principal, [artist])[0]!,
          albums: albumsOut(principal, reader.albumsOfArtist(artist.id)),
          libraryArtistId: String(artist.id),
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/library/lookup/batch',
      summary: 'Which artist MBIDs are in the library',
      tag: 'library',
      access: 'authenticated',
      body: s.mbidsBody,
      response: z.record(z.string(), z.boolean()),
      handler: ({ body }) => {
        const present = reader.artistMbidsPresent(body.mbids);
        return Object.fromEntries(body.mbids.map((m) => [m, present.has(m)]));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/library/albums/lookup/batch',
      summary: 'Album lookup objects for the album MBIDs found in the library',
      tag: 'library',
      access: 'authenticated',
      body: s.mbidsBody,
      response: z.record(z.string(), s.albumLookupSchema),
      handler: ({ body }) => {
        const wanted = new Set(body.mbids);
        const out: Record<string, z.infer<typeof s.albumLookupSchema>> = {};
        for (const album of reader.albumsByMbids(body.mbids)) {
          const lookup = {
            inLibrary: true,
            monitored: album.monitored === 1,
            libraryAlbumId: String(album.id),
            libraryArtistId: String(album.artist_id),
            status: album.available_track_count === 0 ? 'missing' : album.available_track_count < album.track_count ? 'partial' : 'complete',
            trackCount: album.track_count,
            trackFileCount: album.available_track_count,
            ownedTrackMbids: reader.availableTrackMbidsOfAlbum(album.id),
          };
          for (const key of [album.mbid, album.release_mbid]) if (key && wanted.has(key) && !out[key]) out[key] = lookup;
        }
        return out;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/library/recent',
      summary: 'The 20 most recently added artists',
      tag: 'library',
      access: 'authenticated',
      response: z.array(s.artistEntrySchema),
      handler: ({ principal }) => artistsOut(principal, reader.recentArtists(20)),
    }),
    defineRoute({
      method: 'get',
      path: '/api/library/favorites',
      summary: "The current user's favorite artists, albums and tracks",
      tag: 'library',
      access: 'user',
      response: s.favoritesSchema,
      handler: ({ principal }) => {
        const rows = favorites.list(db, principal!.userId);
        const ids = (kind: FavoriteKind) => rows.filter((r) => r.entity_kind === kind).map((r) => r.entity_id);
        const artists = ids('artist').map((id) => reader.artist(id)).filter((a): a is ArtistRow => a !== undefined);
        const albums = ids('album').map((id) => reader.album(id)).filter((a): a is AlbumRow => a !== undefined);
        const tracks = ids('track').map((id) => reader.track(id)).filter((t) => t !== undefined);
        return { artists: artistsOut(principal, artists), albums: albumsOut(principal, albums), tracks: tracksWithFiles(principal, tracks) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/library/favorites',
      summary: 'Add or remove a favorite (user session only)',
      tag: 'library',
      access: 'user',
      body: s.favoriteBody,
      response: z.object({ success: z.boolean(), kind: z.string(), id: z.number(), favorite: z.boolean() }),
      handler: ({ body, principal }) => {
        listening.setFavorites(principal!.userId, [{ kind: body.kind, id: body.id }], body.favorite);
        return { success: true, kind: body.kind, id: body.id, favorite: body.favorite };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/library/playback-queue',
      summary: "A bounded page of the user's saved playback queue",
      tag: 'library',
      access: 'user',
      query: s.queueQuery,
      response: s.queueSchema,
      handler: ({ query, principal }) => queuePage(principal!, query.page, query.pageSize),
    }),
    defineRoute({
      method: 'put',
      path: '/api/library/playback-queue',
      summary: "Replace the user's saved playback queue (the same queue Subsonic players see)",
      tag: 'library',
      access: 'user',
      body: s.queueSaveBody,
      response: s.queueSchema,
      handler: ({ body, principal }) => {
        listening.saveQueue(principal!.userId, { trackIds: body.trackIds, currentIndex: body.currentIndex, positionMs: body.positionMs, changedBy: body.client });
        return queuePage(principal!, 1, 50);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/library/stream/:songId',
      summary: 'Stream a song (library track id); Range supported',
      tag: 'library',
      access: 'media',
      params: s.streamParams,
      response: 'binary',
      handler: stream((p) => {
        const f = library.playableFile(p.songId);
        return { path: f.path, mime: f.mime ?? 'application/octet-stream' };
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/library/canonical-stream/:trackId',
      summary: 'Stream a canonical track; Range supported',
      tag: 'library',
      access: 'media',
      params: s.canonicalStreamParams,
      response: 'binary',
      handler: stream((p) => {
        const f = library.playableFile(p.trackId);
        return { path: f.path, mime: f.mime ?? 'application/octet-stream' };
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/library/file-stream/:albumId/:trackId',
      summary: "Stream an album track's file; Range supported",
      tag: 'library',
      access: 'media',
      params: s.fileStreamParams,
      response: 'binary',
      handler: stream((p) => {
        if (!reader.album(p.albumId)) throw new NotFoundError('Album not found');
        const f = library.playableFile(p.trackId, p.albumId);
        return { path: f.path, mime: f.mime ?? 'application/octet-stream' };
      }),
    }),
  ];
}

