import fs from 'node:fs';
import path from 'node:path';
import { type IAudioMetadata, type IFormat, type IOptions } from 'music-metadata';
import { misnamedAudio } from './audioContent.js';
import { parseAudioFile, type ParsedAudioFile } from './audioFile.js';
import { replayGainOfTags, type ReplayGain } from './replayGain.js';

/** What the scanner keeps from one audio file's tags and stream header. */
export interface FileTags {
  title: string;
  artist: string;
  albumArtist: string;
  album: string;
  trackNumber: number;
  discNumber: number;
  year: number | null;
  date: string | null;
  genres: string[];
  recordingMbid: string | null;
  releaseMbid: string | null;
  releaseGroupMbid: string | null;
  artistMbid: string | null;
  albumArtistMbid: string | null;
  durationMs: number;
  bitrate: number | null;
  sampleRate: number | null;
  bitDepth: number | null;
  channels: number | null;
  codec: string | null;
  container: string | null;
  lossless: boolean;
  lyrics: string | null;
  picture: Uint8Array | null;
  /** ReplayGain values from the tags (any of the usual spellings), or null when the file has none. */
  replayGain: ReplayGain | null;
  /** Why the tags could not be read; the file is still indexed by its path. */
  error: string | null;
}

const UNKNOWN_ARTIST = 'Unknown Artist';

/** Names to use when a file has no (readable) tags: file name, folder names. */
export function fallbackTags(file: string, root: string): Pick<FileTags, 'title' | 'album' | 'artist' | 'albumArtist'> {
  const title = path.basename(file, path.extname(file));
  const rel = path.relative(root, file).split(path.sep);
  const album = rel.length >= 2 ? rel[rel.length - 2]! : 'Unknown Album';
  const artist = rel.length >= 3 ? rel[rel.length - 3]! : UNKNOWN_ARTIST;
  return { title, album, artist, albumArtist: artist };
}

const PARSE_OPTIONS: IOptions = { duration: false, skipCovers: false };

/**
 * One file's tags, never rejecting: a file that cannot be read or parsed gets its path names and the
 * reason in `error`. Read as the scanner reads (parseAudioFile: a plain MP3 directly, tag layouts
 * music-metadata misreads corrected), so a download under review shows the tags it will be indexed by.
 */
export async function readFileTags(file: string, root: string): Promise<FileTags> {
  try {
    return tagsOfParsed(await parseAudioFile(file, fs.statSync(file).size, PARSE_OPTIONS), file, root);
  } catch (err) {
    return unreadable(file, root, err);
  }
}

/** A file that holds no playable audio: the scan reports it and indexes nothing (no 0:00 track). */
export class UnreadableAudioError extends Error {}

/**
 * Tags and content fingerprint (contentFingerprint's value) of one file, read through one open with
 * few reads (see parseAudioFile). The rule: a file is indexed when its audio stream has a duration
 * and, where the container tells, audio data; broken tags on such a file are reported with the file
 * still indexed by its path names. A container that cannot be parsed, or has no audio stream,
 * duration or data, rejects with UnreadableAudioError; so does a file that cannot be read at all.
 */
export async function readTagsAndFingerprint(
  file: string,
  root: string,
  size: number,
  options: { direct?: boolean } = {},
): Promise<{ tags: FileTags; fingerprint: string; direct: boolean }> {
  let parsed = await parseAudioFile(file, size, PARSE_OPTIONS, options.direct ?? true);
  const format = parsed.metadata?.format ?? parsed.partialFormat;
  if (parsed.metadata && format && !(format.duration! > 0) && format.codec) {
    // A stream without a length in any header (raw ADTS AAC) is measured by counting its frames;
    // random bytes that look like frame headers here and there need re-syncs ("Parse error").
    const counted = await parseAudioFile(file, size, { ...PARSE_OPTIONS, duration: true });
    if (counted.metadata && !counted.metadata.quality.warnings.some((w) => w.message.startsWith('Parse error'))) parsed = counted;
  }
  const problem = audioProblem(parsed.metadata?.format ?? parsed.partialFormat);
  if (problem) {
    const misnamed = misnamedAudio(file);
    const why = misnamed ? `${misnamed.said} (rename it to ${misnamed.extension})` : parsed.error ? errorText(parsed.error) : problem;
    throw new UnreadableAudioError(`unreadable audio: ${why}`);
  }
  return { tags: tagsOfParsed(parsed, file, root), fingerprint: parsed.fingerprint, direct: parsed.direct };
}

/** A parse's tags; path names and the reason in `error` for tags that could not be read. */
function tagsOfParsed(parsed: ParsedAudioFile, file: string, root: string): FileTags {
  try {
    return parsed.metadata ? tagsOf(parsed.metadata, fallbackTags(file, root)) : unreadable(file, root, parsed.error, parsed.partialFormat);
  } catch (err) {
    return unreadable(file, root, err, parsed.metadata?.format ?? null);
  }
}

/** Why a parsed format is not playable audio, or null when it is. */
function audioProblem(format: IFormat | null): string | null {
  if (!format || (!format.codec && !format.container)) return 'not an audio file the scanner recognizes';
  if (format.hasAudio === false) return 'no audio stream';
  if (!(format.duration! > 0)) return 'no audio duration (corrupt or truncated)';
  // FLAC and MP4 tell the audio data's size; none behind the headers means a truncated file.
  if (format.bitrate !== undefined && !(format.bitrate > 0)) return 'no audio data (truncated)';
  return null;
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

function tagsOf(meta: IAudioMetadata, fallback: ReturnType<typeof fallbackTags>): FileTags {
  const c = meta.common;
  const f = meta.format;
  const text = (v: string | undefined | null) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
  const artist = text(c.artist) ?? text(c.artists?.[0]) ?? text(c.albumartist) ?? fallback.artist;
  const albumArtist = text(c.albumartist) ?? artist;
  const date = text(c.date) ?? (c.year ? String(c.year) : null);
  const lyric = c.lyrics?.map((l) => l.text ?? l.syncText?.map((s) => s.text).join('\n') ?? '').find((t) => t.trim());
  return {
    title: text(c.title) ?? fallback.title,
    artist,
    albumArtist,
    album: text(c.album) ?? fallback.album,
    trackNumber: c.track?.no ?? 0,
    discNumber: c.disk?.no ?? 1,
    year: c.year ?? (date ? Number(date.slice(0, 4)) || null : null),
    date,
    genres: [...new Set((c.genre ?? []).flatMap((g) => g.split(/\s*[;\/]\s*/)).map((g) => g.trim()).filter(Boolean))],
    recordingMbid: text(c.musicbrainz_recordingid),
    releaseMbid: text(c.musicbrainz_albumid),
    releaseGroupMbid: text(c.musicbrainz_releasegroupid),
    artistMbid: text(c.musicbrainz_artistid?.[0]),
    albumArtistMbid: text(c.musicbrainz_albumartistid?.[0]),
    durationMs: f.duration ? Math.round(f.duration * 1000) : 0,
    bitrate: f.bitrate ? Math.round(f.bitrate) : null,
    sampleRate: f.sampleRate ?? null,
    bitDepth: f.bitsPerSample ?? null,
    channels: f.numberOfChannels ?? null,
    codec: f.codec ?? null,
    container: f.container ?? null,
    lossless: f.lossless ?? false,
    lyrics: lyric ?? null,
    picture: c.picture?.[0]?.data ?? null,
    replayGain: replayGainOfTags(meta),
    error: null,
  };
}

/** Names from the path; the stream facts the parser got before the tags failed, when it got any. */
function unreadable(file: string, root: string, err: unknown, format: IFormat | null = null): FileTags {
  return {
    ...fallbackTags(file, root),
    trackNumber: 0,
    discNumber: 1,
    year: null,
    date: null,
    genres: [],
    recordingMbid: null,
    releaseMbid: null,
    releaseGroupMbid: null,
    artistMbid: null,
    albumArtistMbid: null,
    durationMs: format?.duration ? Math.round(format.duration * 1000) : 0,
    bitrate: format?.bitrate ? Math.round(format.bitrate) : null,
    sampleRate: format?.sampleRate ?? null,
    bitDepth: format?.bitsPerSample ?? null,
    channels: format?.numberOfChannels ?? null,
    codec: format?.codec ?? null,
    container: format?.container ?? null,
    lossless: format?.lossless ?? false,
    lyrics: null,
    picture: null,
    replayGain: null,
    error: `unreadable tags: ${errorText(err)}`,
  };
}
