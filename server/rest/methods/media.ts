import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { findImage } from '../../db/libraryImages.js';
import { lyricsOf, plainText } from '../../domain/subsonic/lyrics.js';
import { NotFoundError } from '../../domain/errors.js';
import { sizedArtwork } from '../../domain/playlists/artworkImages.js';
import { CACHE_KEY, imageMimeOf } from '../../library/imageCache.js';
import { resizedImage } from '../../library/resizedArtwork.js';
import { sendMedia } from '../../library/stream.js';
import { SENT, type RestCall, type RestMethod } from '../context.js';
import { ErrorCode, SubsonicError, notFound } from '../errors.js';
import type { Payload } from '../wire.js';
import { resolveAny, resolveTrack } from '../views.js';
import { attachment, downloadZip } from './archive.js';
import { podcastEpisodeFile } from './podcasts.js';
import { playableSong, sendFile } from './files.js';
import { stream } from './stream.js';

async function download(call: RestCall): Promise<typeof SENT> {
  const raw = call.params.required('id');
  const episode = podcastEpisodeFile(call, raw);
  if (episode) return sendFile(call, episode.file, episode.mime, { 'Content-Disposition': attachment(episode.name) });
  const target = resolveAny(call, raw);
  if (target.kind !== 'track') return downloadZip(call, { kind: target.kind, id: target.id });
  const row = playableSong(call, raw);
  return sendFile(call, row.path, row.mime ?? 'application/octet-stream', { 'Content-Disposition': attachment(path.basename(row.storedPath)) });
}

/** The artwork cache key for any of our ids. */
function imageKeyOf(call: RestCall, raw: string): string | null {
  const target = resolveAny(call, raw);
  const lib = call.rc.library;
  switch (target.kind) {
    case 'album':
      return lib.album(target.id)?.image_key ?? null;
    case 'artist':
      return lib.artist(target.id)?.image_key ?? null;
    case 'track': {
      const song = lib.song(target.id);
      return song?.file_image ?? song?.album_image ?? null;
    }
    case 'playlist': {
      // Any kind of playlist the user may see (static, flow, shared); others are "not found".
      const ref = call.rc.app.playlists.findByRestNumber(target.id);
      if (!ref || !call.rc.app.playlists.canSee(ref, call.user)) throw new SubsonicError(ErrorCode.notFound, 'Playlist not found', 404);
      const trackIds = call.rc.app.playlists.trackIds(ref);
      for (const song of lib.songs(trackIds.slice(0, 20))) {
        const key = song.album_image ?? song.file_image;
        if (key) return key;
      }
      return null;
    }
  }
}

/** Failures keep the error envelope but never HTTP 200, which an image loader would take for a picture. */
function asImageError(err: unknown): unknown {
  if (err instanceof NotFoundError) return new SubsonicError(ErrorCode.notFound, err.message, 404);
  if (err instanceof SubsonicError && err.httpStatus === 200) return new SubsonicError(err.code, err.message, err.code === ErrorCode.notFound ? 404 : 400);
  return err;
}

/** A playlist's own artwork (uploaded or generated), when the id is a visible playlist that has one. */
async function playlistArtwork(call: RestCall, raw: string, size: number): Promise<typeof SENT | null> {
  const target = resolveAny(call, raw);
  if (target.kind !== 'playlist') return null;
  const registry = call.rc.app.playlists;
  const ref = registry.findByRestNumber(target.id);
  if (!ref || !registry.canSee(ref, call.user)) throw new SubsonicError(ErrorCode.notFound, 'Playlist not found', 404);
  const found = call.rc.app.playlistArtwork.of(ref);
  if (!found) return null;
  const bytes = await sizedArtwork(found.file, size > 0 && size < found.info.width ? size : 0);
  call.res.status(200).type(found.info.mime);
  call.res.setHeader('Cache-Control', 'private, max-age=86400');
  call.res.setHeader('Content-Length', String(bytes.length));
  call.res.end(call.req.method === 'HEAD' ? undefined : bytes);
  return SENT;
}

async function getCoverArt(call: RestCall): Promise<typeof SENT> {
  let key: string | null;
  let size: number;
  try {
    const raw = call.params.required('id');
    size = call.params.int('size', 0, { min: 0, max: 4096 });
    const sent = await playlistArtwork(call, raw, size);
    if (sent) return sent;
    key = imageKeyOf(call, raw);
  } catch (err) {
    throw asImageError(err);
  }
  if (!key || !CACHE_KEY.test(key)) throw new SubsonicError(ErrorCode.notFound, 'Cover art not found', 404);
  const original = call.rc.images.fileOf(key);
  if (!fs.existsSync(original)) throw new SubsonicError(ErrorCode.notFound, 'Cover art not found', 404);
  const headers = { 'Cache-Control': 'public, max-age=86400' };
  if (size === 0) {
    const mime = findImage(call.rc.app.db, key)?.mime ?? imageMimeOf(await headOf(original, 16));
    return sendFile(call, original, mime, headers);
  }
  let resized;
  try {
    resized = await resizedImage(call.rc.images, key, size);
  } catch {
    throw new SubsonicError(ErrorCode.generic, 'Cover art could not be read', 500);
  }
  return sendFile(call, resized.file, resized.mime, headers);
}

const avatars = new Map<string, Buffer>();

/** A generated picture: the user's initial on a colour derived from the name. */
async function getAvatar(call: RestCall): Promise<typeof SENT> {
  const username = call.params.required('username');
  const row = call.rc.app.users.findByUsername(username);
  if (!row || row.status !== 'active') throw new SubsonicError(ErrorCode.notFound, 'User not found', 404);
  let png = avatars.get(row.username);
  if (!png) {
    const hue = createHash('md5').update(row.username).digest()[0]! * (360 / 256);
    const initial = [...row.username][0]!.toUpperCase().replace(/[<>&"']/g, '?');
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128"><rect width="128" height="128" fill="hsl(${hue.toFixed(0)},55%,45%)"/><text x="64" y="86" font-family="sans-serif" font-size="64" text-anchor="middle" fill="#fff">${initial}</text></svg>`;
    png = await sharp(Buffer.from(svg)).png().toBuffer();
    avatars.set(row.username, png);
  }
  call.res.status(200).type('image/png').setHeader('Cache-Control', 'private, max-age=3600');
  call.res.end(call.req.method === 'HEAD' ? undefined : png);
  return SENT;
}

function getLyrics(call: RestCall): Payload {
  const title = call.params.string('title');
  const artist = call.params.string('artist');
  if (!title) return { lyrics: { value: '' } };
  const id = call.rc.library.songIdByTitle(title, artist);
  const song = id === undefined ? undefined : call.rc.library.song(id);
  const track = id === undefined ? undefined : call.rc.reader.track(id);
  const servable = (p: string) => call.rc.app.library.servablePath(p);
  const found = song ? lyricsOf(song.path, track?.lyrics ?? null, servable) : null;
  if (!song || !found) return { lyrics: { value: '' } };
  return { lyrics: { artist: song.artist_name, title: song.title, value: plainText(found) } };
}

function getLyricsBySongId(call: RestCall): Payload {
  const trackId = resolveTrack(call, call.params.required('id'));
  const song = call.rc.library.song(trackId);
  if (!song) throw notFound('Song not found');
  const found = lyricsOf(song.path, call.rc.reader.track(trackId)?.lyrics ?? null, (p) => call.rc.app.library.servablePath(p));
  if (!found) return { lyricsList: { structuredLyrics: [] } };
  return {
    lyricsList: {
      structuredLyrics: [
        {
          displayArtist: found.displayArtist ?? song.artist_name,
          displayTitle: found.displayTitle ?? song.title,
          lang: found.lang,
          offset: found.offsetMs,
          synced: found.synced,
          line: found.lines.map((l) => ({ ...(l.startMs !== undefined && { start: l.startMs }), value: l.text })),
        },
      ],
    },
  };
}

export const mediaMethods: RestMethod[] = [
  { name: 'stream', handler: stream },
  { name: 'download', handler: download },
  { name: 'getCoverArt', handler: getCoverArt },
  { name: 'getAvatar', handler: getAvatar },
  { name: 'getLyrics', handler: getLyrics },
  { name: 'getLyricsBySongId', handler: getLyricsBySongId },
];


/** The first `n` bytes of a file (enough to recognise an image's format), without reading the rest. */
async function headOf(file: string, n: number): Promise<Uint8Array> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(n), 0, n, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
