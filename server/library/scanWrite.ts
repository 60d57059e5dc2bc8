import path from 'node:path';
import { nameKey } from '../db/libraryText.js';
import type { LibraryWriter } from '../db/libraryWrites.js';
import { audioMimeOf } from './audioFormats.js';
import type { FileTags } from './tags.js';

/**
 * Tags → canonical rows (source `aurral`): one scanned file's artist(s), album, track and media row,
 * in the caller's transaction. Identity keys prefer MusicBrainz ids, else normalized names. The
 * write side of a scan, as scanRead.ts is its read side.
 */
export function writeScannedFile(
  writer: LibraryWriter,
  tags: FileTags,
  file: { path: string; size: number; mtimeMs: number },
  root: string,
  fingerprint: string | null,
  imageKey: string | null,
  scanId: number,
  now: number,
): void {
  // Read in this transaction (a moved row has just taken this path).
  const previous = writer.knownMediaFile('aurral', file.path);
  const albumArtistKey = tags.albumArtistMbid ? `mbid:${tags.albumArtistMbid}` : `name:${nameKey(tags.albumArtist)}`;
  const albumArtistId = writer.upsertArtist(
    { identityKey: albumArtistKey, mbid: tags.albumArtistMbid, name: tags.albumArtist },
    now,
  );
  let trackArtistId = albumArtistId;
  if (nameKey(tags.artist) !== nameKey(tags.albumArtist) || (tags.artistMbid && tags.artistMbid !== tags.albumArtistMbid)) {
    const key = tags.artistMbid ? `mbid:${tags.artistMbid}` : `name:${nameKey(tags.artist)}`;
    trackArtistId = writer.upsertArtist({ identityKey: key, mbid: tags.artistMbid, name: tags.artist }, now);
  }
  const albumKey = tags.releaseGroupMbid
    ? `mbid:${tags.releaseGroupMbid}`
    : tags.releaseMbid
      ? `release:${tags.releaseMbid}`
      : `album:${albumArtistKey}/${nameKey(tags.album)}`;
  const albumId = writer.upsertAlbum(
    {
      identityKey: albumKey,
      mbid: tags.releaseGroupMbid,
      releaseMbid: tags.releaseMbid,
      artistId: albumArtistId,
      title: tags.album,
      albumArtist: tags.albumArtist,
      releaseDate: tags.date,
    },
    now,
  );
  const trackKey = tags.recordingMbid
    ? `mbid:${tags.recordingMbid}`
    : `track:${albumKey}/${tags.discNumber}/${tags.trackNumber}/${nameKey(tags.title)}`;
  const trackId = writer.upsertTrack(
    {
      identityKey: trackKey,
      mbid: tags.recordingMbid,
      title: tags.title,
      artistName: tags.artist,
      artistId: trackArtistId,
      albumId,
      albumTitle: tags.album,
      discNumber: tags.discNumber,
      trackNumber: tags.trackNumber,
      year: tags.year,
      durationMs: tags.durationMs,
      lyrics: tags.lyrics,
      genres: tags.genres,
    },
    now,
  );
  const ext = path.extname(file.path).slice(1).toLowerCase();
  writer.upsertMediaFile(
    {
      source: 'aurral',
      path: file.path,
      root,
      trackId,
      albumId,
      format: ext,
      mime: audioMimeOf(file.path),
      codec: tags.codec,
      size: file.size,
      mtimeMs: file.mtimeMs,
      durationMs: tags.durationMs,
      bitrate: tags.bitrate,
      sampleRate: tags.sampleRate,
      bitDepth: tags.bitDepth,
      channels: tags.channels,
      lossless: tags.lossless,
      fingerprint,
      imageKey,
      tagError: tags.error,
      replayGain: tags.replayGain,
      scanId,
    },
    now,
    previous?.trackId ?? null,
  );
  // Retagged into another album: the old album no longer lists the track (or loses it entirely).
  if (previous?.albumId != null && previous.albumId !== albumId) writer.pruneAlbumLink(previous.trackId, previous.albumId);
  if (previous && previous.trackId !== trackId) writer.pruneTrackIfOrphan(previous.trackId);
}
