import { z } from 'zod';
import { JsonApi } from '../jsonApi.js';
import { listenBrainzQuota } from './client.js';

/**
 * ListenBrainz playlists in JSPF (external-services (e)): a user's own playlists, the ones made
 * for them (Weekly Jams, Weekly Exploration...) and one playlist with its tracks. The user token
 * is sent so private playlists are readable.
 */
export interface ListenBrainzPlaylistsOptions {
  baseUrl: string;
  userAgent: string;
  token?: string;
  spacingMs?: number;
  timeoutMs?: number;
  retries?: number;
}

const JSPF_PLAYLIST_EXT = 'https://musicbrainz.org/doc/jspf#playlist';
const JSPF_TRACK_EXT = 'https://musicbrainz.org/doc/jspf#track';
const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

const stringOrList = z.preprocess((v) => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]), z.array(z.string()).catch([]));
const jspfTrack = z
  .object({
    title: z.string().nullish(),
    creator: z.string().nullish(),
    album: z.string().nullish(),
    identifier: stringOrList.optional(),
    duration: z.coerce.number().nullish(),
    extension: z.record(z.string(), z.unknown()).nullish(),
  })
  .loose();
const jspfPlaylist = z
  .object({
    title: z.string().nullish(),
    identifier: z.string().nullish(),
    creator: z.string().nullish(),
    date: z.string().nullish(),
    annotation: z.string().nullish(),
    track: z.array(jspfTrack).nullish(),
    extension: z.record(z.string(), z.unknown()).nullish(),
  })
  .loose();
const listSchema = z
  .object({ playlists: z.array(z.object({ playlist: jspfPlaylist }).loose()).default([]), playlist_count: z.coerce.number().optional(), count: z.coerce.number().optional(), offset: z.coerce.number().optional() })
  .loose();
const oneSchema = z.object({ playlist: jspfPlaylist }).loose();

export interface ListenBrainzPlaylist {
  /** The playlist MBID. */
  id: string;
  name: string;
  creator: string | null;
  /** Set on playlists made for the user ("weekly-jams", ...). */
  sourcePatch: string | null;
  createdFor: string | null;
  date: string | null;
  trackCount: number;
}

export interface ListenBrainzPlaylistTrack {
  title: string;
  artist: string;
  album: string | null;
  durationMs: number | null;
  recordingMbid: string | null;
  artistMbid: string | null;
  releaseMbid: string | null;
}

const mbidOf = (value: unknown): string | null => (typeof value === 'string' ? (uuid.exec(value)?.[0]?.toLowerCase() ?? null) : null);

function toPlaylist(p: z.infer<typeof jspfPlaylist>): ListenBrainzPlaylist | null {
  const id = mbidOf(p.identifier);
  if (!id) return null;
  const ext = (p.extension?.[JSPF_PLAYLIST_EXT] ?? {}) as { created_for?: unknown; additional_metadata?: { algorithm_metadata?: { source_patch?: unknown } }; last_modified_at?: unknown };
  const patch = ext.additional_metadata?.algorithm_metadata?.source_patch;
  return {
    id,
    name: p.title || 'ListenBrainz playlist',
    creator: p.creator ?? null,
    sourcePatch: typeof patch === 'string' ? patch : null,
    createdFor: typeof ext.created_for === 'string' ? ext.created_for : null,
    date: p.date ?? (typeof ext.last_modified_at === 'string' ? ext.last_modified_at : null),
    trackCount: p.track?.length ?? 0,
  };
}

function toTrack(t: z.infer<typeof jspfTrack>): ListenBrainzPlaylistTrack | null {
  if (!t.title || !t.creator) return null;
  const ext = (t.extension?.[JSPF_TRACK_EXT] ?? {}) as { artist_identifiers?: unknown; release_identifier?: unknown };
  const artists = Array.isArray(ext.artist_identifiers) ? ext.artist_identifiers : [];
  return {
    title: t.title,
    artist: t.creator,
    album: t.album ?? null,
    durationMs: t.duration && t.duration > 0 ? Math.round(t.duration) : null,
    recordingMbid: (t.identifier ?? []).map(mbidOf).find(Boolean) ?? null,
    artistMbid: mbidOf(artists[0]),
    releaseMbid: mbidOf(ext.release_identifier),
  };
}

export class ListenBrainzPlaylists {
  private readonly api: JsonApi;

  constructor(options: ListenBrainzPlaylistsOptions) {
    this.api = new JsonApi({
      service: 'listenbrainz',
      label: 'ListenBrainz',
      baseUrl: options.baseUrl,
      userAgent: options.userAgent,
      spacingMs: options.spacingMs ?? 250,
      timeoutMs: options.timeoutMs ?? 10_000,
      retries: options.retries ?? 2,
      retryBaseMs: 300,
      ...(options.token && { headers: { Authorization: `Token ${options.token}` } }),
      quota: listenBrainzQuota,
    });
  }

  /** The user's playlists, or (createdFor) the ones ListenBrainz made for them; up to 500. */
  async list(user: string, createdFor: boolean, signal?: AbortSignal): Promise<ListenBrainzPlaylist[]> {
    const path = `/1/user/${encodeURIComponent(user)}/playlists${createdFor ? '/createdfor' : ''}`;
    const out: ListenBrainzPlaylist[] = [];
    for (let offset = 0; offset < 500; offset += 100) {
      const page = await this.api.get({ path, query: { count: 100, offset }, schema: listSchema, ...(signal && { signal }) });
      for (const p of page.playlists) {
        const parsed = toPlaylist(p.playlist);
        if (parsed) out.push(parsed);
      }
      if (page.playlists.length < 100 || (page.playlist_count !== undefined && offset + 100 >= page.playlist_count)) break;
    }
    return out;
  }

  /** One playlist with its tracks. */
  async playlist(mbid: string, signal?: AbortSignal): Promise<{ playlist: ListenBrainzPlaylist; tracks: ListenBrainzPlaylistTrack[] }> {
    const answer = await this.api.get({ path: `/1/playlist/${encodeURIComponent(mbid)}`, query: { fetch_metadata: 'false' }, schema: oneSchema, ...(signal && { signal }) });
    const playlist = toPlaylist(answer.playlist) ?? { id: mbid, name: answer.playlist.title || 'ListenBrainz playlist', creator: null, sourcePatch: null, createdFor: null, date: null, trackCount: 0 };
    const tracks = (answer.playlist.track ?? []).map(toTrack).filter((t): t is ListenBrainzPlaylistTrack => t !== null);
    return { playlist: { ...playlist, trackCount: tracks.length }, tracks };
  }
}
