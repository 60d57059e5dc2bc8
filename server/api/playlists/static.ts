import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { LibraryReader } from '../../db/libraryReads.js';
import { playlistsRepository, type PlaylistRow } from '../../db/playlists.js';
import { NotFoundError, ValidationError } from '../../domain/errors.js';
import { staticRef } from '../../domain/playlists/registry.js';
import { StaticPlaylists } from '../../domain/playlists/staticPlaylists.js';
import { isoTime } from '../../domain/timestamps.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { trackEntry } from '../library/present.js';
import { trackEntrySchema } from '../library/schemas.js';
import type { Same } from '../../http/same.js';
import { artworkInfo } from './artwork.js';

/**
 * The user's static playlists on the JSON API (the same lists /rest shows): list, read with tracks,
 * create, rename or change tracks, delete. api.md lists no such routes (only the playlist-kind
 * `/api/playlists/playlists/:playlistId/retry-cycle`), so these sit under that same prefix; the web
 * UI's Playlists screen uses them.
 */

const tag = 'playlists';
const idParams = z.object({ playlistId: z.string().min(1).max(40) });
const MAX_TRACKS = 10_000;
const trackIds = z.array(z.number().int().positive()).max(MAX_TRACKS);

const summary = z.object({
  id: z.string(),
  kind: z.literal('static'),
  name: z.string(),
  comment: z.string(),
  public: z.boolean(),
  owner: z.string(),
  editable: z.boolean().describe('the caller owns it and may change it'),
  songCount: z.number(),
  durationMs: z.number(),
  createdAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
  artwork: artworkInfo.nullable(),
});
const detail = summary.extend({
  tracks: z.array(z.object({ position: z.number().describe('the index in the list (what PUT removeIndexes takes)'), track: trackEntrySchema })),
});

function numericId(raw: string): number {
  if (!/^[1-9][0-9]{0,14}$/.test(raw)) throw new NotFoundError('Playlist not found');
  return Number(raw);
}

export function staticPlaylistRoutes(ctx: AppContext): RouteDefinition[] {
  const repo = playlistsRepository(ctx.db);
  const reader = new LibraryReader(ctx.db);
  const lists = new StaticPlaylists(repo, ctx.clock, ctx.playlists, reader);
  const artwork = ctx.playlistArtwork;

  const present = (row: PlaylistRow, userId: number) => ({
    id: String(row.id),
    kind: 'static' as const,
    name: row.name,
    comment: row.comment,
    public: row.public === 1,
    owner: row.owner,
    editable: row.user_id === userId,
    songCount: row.song_count,
    durationMs: row.duration_ms,
    createdAt: isoTime(row.created_at) ?? null,
    updatedAt: isoTime(row.updated_at) ?? null,
    artwork: artwork.info(staticRef(row)),
  });

  /** Fails to compile when the summary schema and what `present` answers disagree on a field. */
  const summaryMatches = true satisfies Same<z.infer<typeof summary>, ReturnType<typeof present>>;
  void summaryMatches;

  const withTracks = (row: PlaylistRow, ids: number[], userId: number) => {
    const rows = new Map(reader.tracksByIds([...new Set(ids)]).map((t) => [t.id, t]));
    const files = reader.filesOfTracks([...rows.keys()]);
    return {
      ...present(row, userId),
      // position: the index in the list (what PUT removeIndexes takes); a track gone from the library is left out.
      tracks: ids.flatMap((id, position) => {
        const t = rows.get(id);
        return t ? [{ position, track: trackEntry(t, files.get(id) ?? []) }] : [];
      }),
    };
  };

  return [
    defineRoute({
      method: 'get',
      path: '/api/playlists/playlists',
      summary: "The caller's static playlists and everyone's public ones, by name",
      tag,
      access: 'user',
      response: z.object({ playlists: z.array(summary) }),
      handler: ({ principal }) => ({ playlists: lists.visibleTo(principal!.userId).map((r) => present(r, principal!.userId)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/playlists/playlists',
      summary: 'Create a static playlist owned by the caller',
      tag,
      access: 'user',
      body: z.object({ name: z.string().max(200), comment: z.string().max(2000).optional(), public: z.boolean().optional(), trackIds: trackIds.optional() }),
      response: summary,
      status: 201,
      handler: ({ body, principal }) => {
        const userId = principal!.userId;
        const id = lists.create(userId, body.name, body.trackIds ?? [], {
          ...(body.comment !== undefined && { comment: body.comment }),
          ...(body.public !== undefined && { public: body.public }),
        });
        return present(repo.byId(id)!, userId);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/playlists/playlists/:playlistId',
      summary: 'A static playlist the caller may see, with its library tracks in order',
      tag,
      access: 'user',
      params: idParams,
      response: detail,
      handler: ({ params, principal }) => {
        const userId = principal!.userId;
        const { playlist, trackIds: ids } = lists.get(userId, numericId(params.playlistId));
        return withTracks(playlist, ids, userId);
      },
    }),
    defineRoute({
      method: 'put',
      path: '/api/playlists/playlists/:playlistId',
      summary: 'Rename, describe, share, or change the tracks of a static playlist (owner only)',
      tag,
      access: 'user',
      params: idParams,
      body: z
        .object({
          name: z.string().max(200).optional(),
          comment: z.string().max(2000).optional(),
          public: z.boolean().optional(),
          removeIndexes: z.array(z.number().int().min(0)).max(MAX_TRACKS).optional(),
          addTrackIds: trackIds.optional(),
          trackIds: trackIds.optional(),
        })
        .strict(),
      response: detail,
      handler: ({ params, body, principal }) => {
        const userId = principal!.userId;
        const id = numericId(params.playlistId);
        if (Object.keys(body).length === 0) throw new ValidationError('Nothing to change: send name, comment, public or track changes');
        lists.update(userId, id, {
          ...(body.name !== undefined && { name: body.name }),
          ...(body.comment !== undefined && { comment: body.comment }),
          ...(body.public !== undefined && { public: body.public }),
          ...(body.removeIndexes && { removeIndexes: body.removeIndexes }),
          ...(body.addTrackIds && { addTrackIds: body.addTrackIds }),
          ...(body.trackIds && { trackIds: body.trackIds }),
        });
        const { playlist, trackIds: ids } = lists.get(userId, id);
        return withTracks(playlist, ids, userId);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/playlists/playlists/:playlistId',
      summary: "Delete a static playlist (owner only); its tracks' files are kept",
      tag,
      access: 'user',
      params: idParams,
      response: z.object({ success: z.boolean() }),
      handler: ({ params, principal }) => {
        lists.delete(principal!.userId, numericId(params.playlistId));
        return { success: true };
      },
    }),
  ];
}
