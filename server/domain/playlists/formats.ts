import { z } from 'zod';
import { ValidationError } from '../errors.js';

/**
 * Playlist files in and out: JSPF (the JSON form of XSPF, as ListenBrainz writes it), M3U/M3U8
 * with `#EXTINF` lines, and this service's own JSON export, which carries everything a shared
 * playlist holds and imports back unchanged. Parsing either yields every track or throws a
 * ValidationError naming what is wrong; nothing is half-read.
 */

export type PlaylistFormat = 'jspf' | 'm3u' | 'tonearm';
export const playlistFormats = ['jspf', 'm3u', 'tonearm'] as const;

/** The identifier of this service's export (`format` field). */
export const EXPORT_FORMAT = 'tonearm-playlist';
export const EXPORT_VERSION = 1;

export interface PlaylistEntry {
  artistName: string;
  trackName: string;
  albumName: string | null;
  durationMs: number | null;
  recordingMbid: string | null;
}

export interface ParsedPlaylist {
  format: PlaylistFormat;
  name: string | null;
  description: string | null;
  tracks: PlaylistEntry[];
}

/** A track as exported; `location` only for M3U (a path inside the library, or "Artist - Title"). */
export interface ExportTrack extends PlaylistEntry {
  location?: string | null;
}

export const MAX_TRACKS = 5000;
const MBID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RECORDING_URL = /musicbrainz\.org\/recording\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/i;

const clean = (s: string | null | undefined): string => (s ?? '').replace(/[\u0000-\u001f]+/g, ' ').trim();
const orNull = (s: string | null | undefined): string | null => clean(s) || null;

function entry(artistName: string, trackName: string, rest: Partial<PlaylistEntry> = {}): PlaylistEntry {
  const mbid = rest.recordingMbid && MBID.test(rest.recordingMbid) ? rest.recordingMbid.toLowerCase() : null;
  const duration = rest.durationMs !== null && rest.durationMs !== undefined && Number.isFinite(rest.durationMs) && rest.durationMs > 0 ? Math.round(rest.durationMs) : null;
  return {
    artistName: clean(artistName).slice(0, 500),
    trackName: clean(trackName).slice(0, 500),
    albumName: orNull(rest.albumName)?.slice(0, 500) ?? null,
    durationMs: duration,
    recordingMbid: mbid,
  };
}

function limit(tracks: PlaylistEntry[]): PlaylistEntry[] {
  if (tracks.length > MAX_TRACKS) throw new ValidationError(`A playlist may hold at most ${MAX_TRACKS} tracks (this one has ${tracks.length})`, 'PLAYLIST_TOO_LARGE');
  return tracks;
}

// --- JSPF ---------------------------------------------------------------------------------------

const jspfText = z.union([z.string(), z.number()]).transform(String);
const jspfTrack = z.looseObject({
  title: jspfText.optional(),
  creator: jspfText.optional(),
  album: jspfText.optional().nullable(),
  duration: z.union([z.number(), z.string()]).optional().nullable(),
  identifier: z.union([z.string(), z.array(z.string())]).optional().nullable(),
});
const jspfSchema = z.looseObject({
  playlist: z.looseObject({
    title: jspfText.optional().nullable(),
    annotation: jspfText.optional().nullable(),
    track: z.array(z.unknown()).optional().default([]),
  }),
});

function parseJspf(data: unknown): ParsedPlaylist {
  const doc = jspfSchema.safeParse(data);
  if (!doc.success) throw new ValidationError('Not a JSPF playlist: it needs a "playlist" object with a "track" array', 'INVALID_PLAYLIST');
  const tracks = doc.data.playlist.track.map((raw, i) => {
    const t = jspfTrack.safeParse(raw);
    if (!t.success || !clean(t.data.title) || !clean(t.data.creator))
      throw new ValidationError(`Track ${i + 1} of the JSPF playlist has no title or creator`, 'INVALID_PLAYLIST');
    const ids = t.data.identifier === undefined || t.data.identifier === null ? [] : Array.isArray(t.data.identifier) ? t.data.identifier : [t.data.identifier];
    const mbid = ids.map((id) => RECORDING_URL.exec(id)?.[1]).find((m) => m !== undefined) ?? null;
    const duration = t.data.duration === undefined || t.data.duration === null ? null : Number(t.data.duration);
    return entry(t.data.creator!, t.data.title!, { albumName: t.data.album ?? null, durationMs: duration, recordingMbid: mbid });
  });
  return { format: 'jspf', name: orNull(doc.data.playlist.title), description: orNull(doc.data.playlist.annotation), tracks: limit(tracks) };
}

export function toJspf(p: { name: string; description: string; owner: string | null; createdAt: number }, tracks: ExportTrack[]) {
  return {
    playlist: {
      title: p.name,
      ...(p.description && { annotation: p.description }),
      ...(p.owner && { creator: p.owner }),
      date: new Date(p.createdAt).toISOString(),
      track: tracks.map((t) => ({
        title: t.trackName,
        creator: t.artistName,
        ...(t.albumName && { album: t.albumName }),
        ...(t.durationMs !== null && { duration: t.durationMs }),
        ...(t.recordingMbid && { identifier: [`https://musicbrainz.org/recording/${t.recordingMbid}`] }),
      })),
    },
  };
}

// --- own export -----------------------------------------------------------------------------------

const ownTrack = z.object({
  artistName: z.string().trim().min(1).max(500),
  trackName: z.string().trim().min(1).max(500),
  albumName: z.string().max(500).nullable().optional(),
  durationMs: z.number().int().positive().nullable().optional(),
  recordingMbid: z.string().regex(MBID).nullable().optional(),
});
const ownSchema = z.object({
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION),
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).optional().default(''),
  tracks: z.array(ownTrack).max(MAX_TRACKS),
});

function parseOwn(data: unknown): ParsedPlaylist {
  const doc = ownSchema.safeParse(data);
  if (!doc.success) {
    const issue = doc.error.issues[0]!;
    throw new ValidationError(`Not a valid ${EXPORT_FORMAT} export: ${issue.path.join('.') || 'document'}: ${issue.message}`, 'INVALID_PLAYLIST');
  }
  return {
    format: 'tonearm',
    name: doc.data.name,
    description: doc.data.description,
    tracks: doc.data.tracks.map((t) => entry(t.artistName, t.trackName, { albumName: t.albumName ?? null, durationMs: t.durationMs ?? null, recordingMbid: t.recordingMbid ?? null })),
  };
}

export function toOwnExport(p: { name: string; description: string; createdAt: number }, tracks: ExportTrack[], now: number) {
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    name: p.name,
    description: p.description,
    exportedAt: new Date(now).toISOString(),
    tracks: tracks.map((t) => ({
      artistName: t.artistName,
      trackName: t.trackName,
      albumName: t.albumName,
      durationMs: t.durationMs,
      recordingMbid: t.recordingMbid,
    })),
  };
}

// --- M3U / M3U8 -----------------------------------------------------------------------------------

const AUDIO_EXT = /\.(mp3|flac|ogg|oga|opus|m4a|mp4|aac|wav|wma|aiff?|ape|wv|alac|mka|webm)$/i;

/** "Artist - Title" → both; otherwise the whole text is the title. */
function splitDisplay(display: string): { artist: string | null; title: string } {
  const i = display.indexOf(' - ');
  if (i > 0) return { artist: display.slice(0, i).trim(), title: display.slice(i + 3).trim() };
  return { artist: null, title: display.trim() };
}

/** What a location says when no #EXTINF named the track: `Artist/Album/01 Title.ext` or `Artist - Title.ext`. */
function fromLocation(location: string): { artist: string | null; album: string | null; title: string } {
  let p = location.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(p)) {
    try {
      p = decodeURIComponent(new URL(p).pathname);
    } catch {
      // keep it as written
    }
  }
  const parts = p.split(/[\\/]+/).filter(Boolean);
  const file = (parts.pop() ?? '').replace(AUDIO_EXT, '');
  const withoutNumber = file.replace(/^\d{1,3}(\s*[-.]\s*|\s+)/, '');
  const split = splitDisplay(withoutNumber);
  const album = parts.length >= 1 ? parts[parts.length - 1]! : null;
  const artist = split.artist ?? (parts.length >= 2 ? parts[parts.length - 2]! : null);
  return { artist, album: split.artist ? null : album, title: split.title };
}

function parseM3u(text: string): ParsedPlaylist {
  const lines = text.split(/\r\n|\r|\n/);
  let name: string | null = null;
  let info: { seconds: number | null; display: string } | null = null;
  let album: string | null = null;
  let artistTag: string | null = null;
  const tracks: PlaylistEntry[] = [];
  let sawHeader = false;
  lines.forEach((raw, n) => {
    const line = raw.trim();
    if (line === '') return;
    if (line.startsWith('#')) {
      const upper = line.toUpperCase();
      if (upper.startsWith('#EXTM3U')) sawHeader = true;
      else if (upper.startsWith('#PLAYLIST:')) name = line.slice(10).trim() || null;
      else if (upper.startsWith('#EXTALB:')) album = line.slice(8).trim() || null;
      else if (upper.startsWith('#EXTART:')) artistTag = line.slice(8).trim() || null;
      else if (upper.startsWith('#EXTINF:')) {
        const body = line.slice(8);
        const comma = body.indexOf(',');
        if (comma < 0) throw new ValidationError(`Line ${n + 1}: #EXTINF needs "duration,Artist - Title"`, 'INVALID_PLAYLIST');
        const secs = Number.parseFloat(body.slice(0, comma));
        info = { seconds: Number.isFinite(secs) && secs > 0 ? secs : null, display: body.slice(comma + 1) };
      }
      return;
    }
    const loc = fromLocation(line);
    const shown = info ? splitDisplay((info as { display: string }).display) : null;
    const artist = shown?.artist ?? artistTag ?? loc.artist;
    const title = shown?.title || loc.title;
    if (!artist || !title) throw new ValidationError(`Line ${n + 1}: no artist and title for "${line.slice(0, 100)}" (add an #EXTINF line "duration,Artist - Title")`, 'INVALID_PLAYLIST');
    const seconds = info ? (info as { seconds: number | null }).seconds : null;
    tracks.push(entry(artist, title, { albumName: album ?? (shown?.artist ? null : loc.album), durationMs: seconds !== null ? seconds * 1000 : null }));
    info = null;
    album = null;
    artistTag = null;
  });
  if (!sawHeader && tracks.length === 0) throw new ValidationError('Not a playlist: no #EXTM3U header and no tracks', 'INVALID_PLAYLIST');
  return { format: 'm3u', name, description: null, tracks: limit(tracks) };
}

export function toM3u(p: { name: string }, tracks: ExportTrack[]): string {
  const out = ['#EXTM3U', `#PLAYLIST:${clean(p.name)}`];
  for (const t of tracks) {
    const secs = t.durationMs !== null ? Math.round(t.durationMs / 1000) : -1;
    out.push(`#EXTINF:${secs},${clean(t.artistName)} - ${clean(t.trackName)}`);
    if (t.albumName) out.push(`#EXTALB:${clean(t.albumName)}`);
    out.push(clean(t.location) || `${clean(t.artistName)} - ${clean(t.trackName)}`);
  }
  return `${out.join('\n')}\n`;
}

// --- detection ------------------------------------------------------------------------------------

/**
 * Reads a playlist document. `content` is the file's text or an already parsed JSON value; with
 * `format` the document must be of that kind, otherwise it is recognised from its content.
 */
export function parsePlaylist(content: unknown, format?: PlaylistFormat): ParsedPlaylist {
  let value = content;
  if (typeof value === 'string') {
    const text = value.replace(/^\uFEFF/, '');
    if (text.includes('\u0000')) throw new ValidationError('The playlist is not text', 'INVALID_PLAYLIST');
    if (text.trim() === '') throw new ValidationError('The playlist is empty', 'INVALID_PLAYLIST');
    const looksJson = /^\s*[{[]/.test(text);
    if (format === 'm3u' || (!format && !looksJson)) return parseM3u(text);
    try {
      value = JSON.parse(text);
    } catch {
      throw new ValidationError('The playlist is not valid JSON', 'INVALID_PLAYLIST');
    }
  }
  if (format === 'm3u') throw new ValidationError('An M3U playlist must be sent as text', 'INVALID_PLAYLIST');
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ValidationError('The playlist must be a JSON object', 'INVALID_PLAYLIST');
  const obj = value as Record<string, unknown>;
  if (format === 'tonearm' || (!format && obj.format === EXPORT_FORMAT)) return parseOwn(obj);
  if (format === 'jspf' || (!format && 'playlist' in obj)) return parseJspf(obj);
  throw new ValidationError(`Unrecognised playlist format: expected JSPF, M3U/M3U8 or a ${EXPORT_FORMAT} export`, 'INVALID_PLAYLIST');
}
