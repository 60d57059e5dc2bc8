import fs from 'node:fs';
import type { SongRow } from '../../db/subsonicLibrary.js';
import { ZipTooLargeError, safeName, uniqueNames, writeZip, zipLength, type ZipEntry } from '../../domain/subsonic/zipArchive.js';
import { realPathWithin } from '../../library/libraryRoots.js';
import { SENT, type RestCall } from '../context.js';
import { ErrorCode, SubsonicError, notFound } from '../errors.js';
import { suffixOf } from '../serialize.js';

/** `download` of an album, an artist or a playlist: a zip of the original files, streamed. */

export function attachment(name: string): string {
  const clean = name.replace(/["\\\r\n]/g, '_');
  return `attachment; filename="${clean.replace(/[^\x20-\x7e]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(clean)}`;
}

type Target = { kind: 'album' | 'artist' | 'playlist'; id: number };

/** The songs to pack and the archive's name. */
function contents(call: RestCall, target: Target): { title: string; trackIds: number[] } {
  const lib = call.rc.library;
  switch (target.kind) {
    case 'album': {
      const album = lib.album(target.id);
      if (!album) throw notFound('Album not found');
      return { title: `${album.album_artist} - ${album.title}`, trackIds: lib.songIdsOfAlbum(album.id) };
    }
    case 'artist': {
      const artist = lib.artist(target.id);
      if (!artist) throw notFound('Artist not found');
      // Its albums whole, plus its own tracks on other artists' albums (an artist known only from compilations).
      const ownAlbums = lib.albumIdsOfArtist(artist.id).flatMap((a) => lib.songIdsOfAlbum(a));
      return { title: artist.name, trackIds: [...ownAlbums, ...lib.songIdsOfArtist(artist.id, 100_000)] };
    }
    case 'playlist': {
      // Any kind the user may read (static, flow, shared), through the playlist registry.
      const registry = call.rc.app.playlists;
      const ref = registry.findByRestNumber(target.id);
      if (!ref || !registry.canSee(ref, { id: call.user.id, role: call.user.role })) throw notFound('Playlist not found');
      return { title: ref.name, trackIds: registry.trackIds(ref) };
    }
  }
}

/**
 * `Artist/Album/NN - Title.ext` (`D-NN` on albums with several discs), from the file's current size;
 * `servable` gives the real path to read (null: gone, or leads outside the library's folders).
 */
function entriesOf(songs: SongRow[], servable: (file: string) => string | null): ZipEntry[] {
  const multiDisc = new Set<number>();
  for (const s of songs) if (s.disc_number > 1 && s.album_id !== null) multiDisc.add(s.album_id);
  const entries: ZipEntry[] = [];
  for (const s of songs) {
    const real = s.path ? servable(s.path) : null;
    if (!real) continue;
    let stat: fs.Stats;
    try {
      stat = fs.statSync(real);
    } catch {
      continue; // vanished since the last scan
    }
    if (!stat.isFile()) continue;
    const suffix = suffixOf(s);
    const n = s.track_number > 0 ? String(s.track_number).padStart(2, '0') : '';
    const number = n && s.album_id !== null && multiDisc.has(s.album_id) ? `${Math.max(1, s.disc_number)}-${n}` : n;
    const file = `${number ? `${number} - ` : ''}${safeName(s.title)}${suffix ? `.${suffix}` : ''}`;
    const name = `${safeName(s.album_artist ?? s.artist_name, 'Unknown Artist')}/${safeName(s.album_title ?? '', 'Unknown Album')}/${file}`;
    entries.push({ name, file: real, size: stat.size, mtimeMs: stat.mtimeMs });
  }
  return uniqueNames(entries);
}

export async function downloadZip(call: RestCall, target: Target): Promise<typeof SENT> {
  const { title, trackIds } = contents(call, target);
  const songs = call.rc.library.songs([...new Set(trackIds)]).filter((s) => s.available === 1 && s.path);
  const library = call.rc.app.library;
  const roots = library.servingRoots();
  const entries = entriesOf(songs, (file) => realPathWithin(file, roots));
  if (entries.length === 0) throw notFound('Nothing to download: no playable files');
  let length: number;
  try {
    length = zipLength(entries);
  } catch (err) {
    if (err instanceof ZipTooLargeError) throw new SubsonicError(ErrorCode.generic, err.message);
    throw err;
  }
  const res = call.res;
  res.status(200);
  res.setHeader('Content-Type', 'application/zip');
  res.setHeader('Content-Length', String(length));
  res.setHeader('Content-Disposition', attachment(`${safeName(title, 'download')}.zip`));
  res.setHeader('Cache-Control', 'no-cache');
  if (call.req.method === 'HEAD') {
    res.end();
    return SENT;
  }
  try {
    await writeZip(entries, res);
    res.end();
  } catch (err) {
    // Headers are gone: a truncated body (connection reset) is the only honest signal left.
    if (!res.destroyed) call.rc.app.log.warn('zip download failed', { err });
    res.destroy();
  }
  return SENT;
}
