import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../../db/connection.js';
import { downloads, type DownloadJobRow } from '../../db/downloads.js';
import type NodeID3 from 'node-id3';
import { writeId3OffThread } from '../../library/tagThread.js';
import { needsFfmpeg, writeTaggedCopy } from '../../library/taggedCopy.js';
import { replayGainTagText, type ReplayGain } from '../../library/replayGain.js';
import { readAudio } from './verify.js';
import { STAGING_DIR, finalPath, isInside, safeSegment, stagingDir } from './layout.js';

/**
 * The file side of the pipeline: holding a downloaded file in the job's staging folder, tagging
 * a copy (MP3: node-id3 on the tag thread; other formats: taggedCopy.ts, FLAC in-process and the rest
 * by ffmpeg `-c copy`; the audio is untouched either way), placing it in the library without
 * ever overwriting another file and without a half-written file under its final name, and removing
 * files only where removal is safe.
 */

/** A filing failure the job reports as is (disk full, folder not writable...). */
export class FilingError extends Error {}

/** The job error for a file-system failure, naming the folder. */
export function describeFsError(err: unknown, folder: string): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return `The disk holding ${folder} is full; free some space and retry`;
  if (code === 'EACCES' || code === 'EPERM') return `The folder ${folder} is not writable by this server (permission denied)`;
  if (code === 'EROFS') return `The folder ${folder} is on a read-only file system`;
  return `Could not write in ${folder}: ${err instanceof Error ? err.message : String(err)}`;
}

/**
 * Gives a held file the extension its content calls for (a FLAC shared as `.mp3`), in its staging
 * folder. Safe against a kill: the new name is linked first and `save` records it before the old
 * name goes; where hard links are not supported, the file is renamed and then recorded.
 */
export function renameHeld(held: string, extension: string, save: (renamed: string) => void): string {
  const renamed = path.join(path.dirname(held), `${path.basename(held, path.extname(held))}${extension}`);
  fs.rmSync(renamed, { force: true });
  try {
    fs.linkSync(held, renamed);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw err;
    fs.renameSync(held, renamed);
  }
  save(renamed);
  fs.rmSync(held, { force: true });
  return renamed;
}

/** Where a finished download is held: `<root>/.staging/<jobId>/<cleaned file name>`. */
export function stagingTargetFor(root: string, jobId: number, from: string): string {
  const ext = path.extname(from).replace(/[^.a-zA-Z0-9]/g, '').toLowerCase().slice(0, 17);
  const dest = path.join(stagingDir(root, jobId), `${safeSegment(path.basename(from, path.extname(from)), 'download')}${ext}`);
  if (!isInside(path.join(root, STAGING_DIR), dest)) throw new FilingError('refusing a staging path outside the downloads root');
  return dest;
}

/**
 * Creates a folder (and its parents); a failure becomes a FilingError naming the folder with the
 * real cause, found by probing the nearest existing parent (a recursive mkdir may report ENOENT
 * for a read-only or forbidden parent).
 */
export function ensureFolder(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
    return;
  } catch (err) {
    let cause: unknown = err;
    let probe = path.dirname(dir);
    while (!fs.existsSync(probe) && path.dirname(probe) !== probe) probe = path.dirname(probe);
    try {
      fs.accessSync(probe, fs.constants.W_OK);
      fs.mkdirSync(path.join(probe, `.tonearm-probe-${process.pid}`));
      fs.rmdirSync(path.join(probe, `.tonearm-probe-${process.pid}`));
    } catch (probeErr) {
      cause = probeErr;
    }
    throw new FilingError(describeFsError(cause, dir));
  }
}

/**
 * Holds a finished download at its staging path. A file the job wrote into its own staging folder
 * (yt-dlp) is renamed; a file in a download client's folder (slskd, SABnzbd, NZBGet) belongs to the
 * client and is never moved or removed: it is hard-linked when it is on the same file system (the
 * tagged copy is written from it later, so it is never changed), else copied, under a temporary
 * name that is renamed once complete. The copy runs on libuv's thread pool: a source's folder on
 * another disk is common, and a 40 MB FLAC copied on the event loop would hold every request for
 * tens of milliseconds.
 */
export async function holdInStaging(from: string, dest: string): Promise<void> {
  if (path.resolve(from) === path.resolve(dest)) return;
  const dir = path.dirname(dest);
  const ours = isInside(dir, from);
  // Moved (ours) or linked/copied (a client's) before a restart.
  if (fs.existsSync(dest) && (ours ? !fs.existsSync(from) : true)) return;
  ensureFolder(dir);
  try {
    if (ours) {
      fs.renameSync(from, dest);
      return;
    }
    try {
      await fs.promises.link(from, dest);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOSPC' || code === 'EROFS') throw err;
      // Another file system, a file system without hard links, or a file this user may not link.
    }
    const tmp = `${dest}.part`;
    await fs.promises.copyFile(from, tmp);
    fs.renameSync(tmp, dest);
  } catch (err) {
    throw new FilingError(describeFsError(err, dir));
  }
}

export interface TagValues {
  title: string;
  artist: string;
  album: string | null;
  trackNumber: number | null;
  discNumber: number | null;
  year: number | null;
  recordingMbid: string | null;
  releaseMbid: string | null;
  albumMbid: string | null;
  artistMbid: string | null;
  /** ReplayGain measured before filing (replayGain.ts), written as REPLAYGAIN_* tags. */
  replayGain?: ReplayGain | null;
}

/** The job's tags in ffmpeg's names (taggedCopy.ts), the ids as Vorbis-style keys. */
function tagMeta(t: TagValues): [string, string | null][] {
  return [
    ['title', t.title],
    ['artist', t.artist],
    ['album', t.album],
    ['album_artist', t.artist],
    ['track', t.trackNumber ? String(t.trackNumber) : null],
    ['disc', t.discNumber ? String(t.discNumber) : null],
    ['date', t.year ? String(t.year) : null],
    ['MUSICBRAINZ_TRACKID', t.recordingMbid],
    ['MUSICBRAINZ_ALBUMID', t.releaseMbid],
    ['MUSICBRAINZ_RELEASEGROUPID', t.albumMbid],
    ['MUSICBRAINZ_ARTISTID', t.artistMbid],
    ...(t.replayGain ? replayGainTagText(t.replayGain) : []),
  ];
}

/**
 * The job's tags as ID3 frames, in MusicBrainz Picard's conventions: the ids in TXXX frames, and the
 * recording id also in the UFID frame owned by "http://musicbrainz.org", where tag readers (this
 * library's scanner, Lidarr, Navidrome) look for it first. Written by node-id3 rather than ffmpeg:
 * ffmpeg cannot write UFID, and starting it (Debian's build loads some two hundred libraries) costs
 * over 100 ms of CPU per file, which eight parallel downloads turn into a saturated machine.
 */
export function id3Frames(t: TagValues): NodeID3.Tags {
  const ids: [string, string | null][] = [
    ['MusicBrainz Track Id', t.recordingMbid],
    ['MusicBrainz Album Id', t.releaseMbid],
    ['MusicBrainz Release Group Id', t.albumMbid],
    ['MusicBrainz Artist Id', t.artistMbid],
  ];
  const userDefinedText = [...ids, ...(t.replayGain ? replayGainTagText(t.replayGain) : [])]
    .filter(([, v]) => v)
    .map(([description, value]) => ({ description, value: value! }));
  return {
    title: t.title,
    artist: t.artist,
    performerInfo: t.artist,
    ...(t.album && { album: t.album }),
    ...(t.trackNumber && { trackNumber: String(t.trackNumber) }),
    ...(t.discNumber && { partOfSet: String(t.discNumber) }),
    ...(t.year && { year: String(t.year) }),
    ...(userDefinedText.length > 0 && { userDefinedText }),
    ...(t.recordingMbid && {
      uniqueFileIdentifier: [{ ownerIdentifier: 'http://musicbrainz.org', identifier: Buffer.from(t.recordingMbid, 'latin1') }],
    }),
  };
}

export interface PlaceResult {
  path: string;
  tagged: boolean;
  tagError: string | null;
}

/** A name in `dir` for a new file, `NN Title.ext`, else `NN Title (2).ext`...; `mine` (from a run before a restart) is kept. */
export function freeName(wanted: string, mine: string | null): string {
  if (mine && path.dirname(mine) === path.dirname(wanted)) return mine;
  if (!fs.existsSync(wanted)) return wanted;
  const ext = path.extname(wanted);
  const stem = wanted.slice(0, wanted.length - ext.length);
  for (let i = 2; i < 1000; i++) {
    const p = `${stem} (${i})${ext}`;
    if (!fs.existsSync(p)) return p;
  }
  throw new FilingError(`too many files named like ${wanted}`);
}

/** The temporary name a job writes before publishing a file; hidden, so scans and watchers skip it. */
export const tempNameOf = (target: string, jobId: number) => path.join(path.dirname(target), `.${path.basename(target)}.tonearm-${jobId}.part`);

/**
 * Writes the held file, tagged, under `target` (chosen by `targetFor`): a temporary file in the
 * same folder, then a hard link to the final name (which fails rather than overwrite) and the
 * temporary name removed, so the final name only ever holds a complete file.
 */
export async function placeFile(opts: {
  held: string;
  target: string;
  jobId: number;
  tags: TagValues;
  ffmpeg: string | null;
  signal?: AbortSignal;
  /** The held file's duration; a tagged copy must match it. */
  expectDurationMs?: number;
}): Promise<PlaceResult> {
  const { held, target, jobId } = opts;
  const dir = path.dirname(target);
  const ext = path.extname(target).replace(/^\./, '').toLowerCase();
  const tmp = tempNameOf(target, jobId);
  let tagged = false;
  let tagError: string | null = null;
  let placed = target;
  ensureFolder(dir);
  try {
    fs.rmSync(tmp, { force: true });
    const tagger = ext === 'mp3' ? 'id3' : !needsFfmpeg(ext) || opts.ffmpeg ? 'copy' : null;
    if (tagger) {
      try {
        if (tagger === 'id3') {
          await fs.promises.copyFile(held, tmp);
          await writeId3OffThread(tmp, id3Frames(opts.tags));
        } else {
          await writeTaggedCopy(held, tmp, ext, tagMeta(opts.tags), opts.ffmpeg, opts.signal);
        }
        tagged = true;
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOSPC' || code === 'EACCES' || code === 'EROFS') throw err;
        tagError = err instanceof Error ? err.message : String(err);
        fs.rmSync(tmp, { force: true });
      }
      // ffmpeg reports a full disk in its own words.
      if (tagError && /No space left on device/i.test(tagError)) throw Object.assign(new Error(tagError), { code: 'ENOSPC' });
      if (tagError && /Permission denied|Read-only file system/i.test(tagError)) throw Object.assign(new Error(tagError), { code: /Read-only/i.test(tagError) ? 'EROFS' : 'EACCES' });
    }
    if (!tagged) await fs.promises.copyFile(held, tmp);
    else if (opts.expectDurationMs && !(await sameLength(tmp, opts.expectDurationMs))) {
      // The tagged copy is not the whole file (a write that failed quietly): a plain copy reports why.
      tagged = false;
      tagError = 'the tagged copy came out shorter than the download';
      fs.rmSync(tmp, { force: true });
      await fs.promises.copyFile(held, tmp);
    }
    // On disk before it gets its name; flushed on libuv's thread pool, not on the event loop.
    const handle = await fs.promises.open(tmp, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      fs.linkSync(tmp, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // The same file published by this job before a restart stays; anything else is never overwritten.
      if (fs.statSync(target).size !== fs.statSync(tmp).size) {
        placed = freeName(target, null);
        fs.linkSync(tmp, placed);
      }
    }
    fs.rmSync(tmp, { force: true });
  } catch (err) {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // the folder itself is unusable: nothing was written
    }
    if (err instanceof FilingError) throw err;
    if ((err as Error).name === 'AbortError') throw err;
    throw new FilingError(describeFsError(err, dir));
  }
  return { path: placed, tagged, tagError };
}

async function sameLength(file: string, durationMs: number): Promise<boolean> {
  try {
    return Math.abs((await readAudio(file)).durationMs - durationMs) <= 1000;
  } catch {
    return false;
  }
}

/** The final path of a job's file (the layout), with the file's extension. */
export function libraryPathFor(root: string, job: DownloadJobRow, ext: string): string {
  return finalPath(root, job, ext);
}

/**
 * Removes a file only when it lies in the job's staging folder or the downloads root and no other
 * job still points at it; returns whether it removed it.
 */
export function removeSafely(db: Db, root: string, file: string | null, jobId: number): boolean {
  if (!file) return false;
  const p = path.resolve(file);
  if (!isInside(root, p) || p === path.resolve(root)) return false;
  if (downloads.pathInUse(db, p, jobId)) return false;
  try {
    fs.rmSync(p, { force: true });
    return true;
  } catch {
    return false;
  }
}

/** The job's staging folder, when it lies strictly inside `<root>/.staging` (else null: nothing to remove). */
function stagingToClear(root: string, jobId: number): string | null {
  const dir = stagingDir(root, jobId);
  if (!isInside(path.join(root, STAGING_DIR), dir) || path.resolve(dir) === path.resolve(root, STAGING_DIR)) return null;
  return dir;
}

/** Removes the job's staging folder (only that folder, only under `<root>/.staging`). */
export function clearStaging(root: string, jobId: number): void {
  const dir = stagingToClear(root, jobId);
  if (!dir) return;
  try {
    fs.rmSync(dir, { recursive: true, force: true });
  } catch {
    // best effort: a leftover folder is cleared the next time the job runs
  }
}

/** clearStaging on libuv's thread pool: for the pipeline's hot path, where the event loop should not wait on the disk. */
export async function clearStagingAsync(root: string, jobId: number): Promise<void> {
  const dir = stagingToClear(root, jobId);
  if (!dir) return;
  await fs.promises.rm(dir, { recursive: true, force: true }).catch(() => {
    // best effort, as clearStaging
  });
}
