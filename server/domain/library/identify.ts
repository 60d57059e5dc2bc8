import fs from 'node:fs';
import path from 'node:path';
import { libraryIdentify, type IdentifyProposal, type IdentifyRun } from '../../db/libraryIdentify.js';
import { PermanentJobError } from '../../jobs/queue.js';
import { needsFfmpeg, writeTaggedCopy } from '../../library/taggedCopy.js';
import { writeId3OffThread } from '../../library/tagThread.js';
import { similarity } from '../downloads/scoring.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { locateFfmpeg } from '../subsonic/transcoding.js';
import type { Kernel } from '../../kernel.js';
import type { Broadcaster } from '../events.js';
import type { AcoustIdService } from '../metadata/acoustid.js';
import type { LibraryService } from './service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'config' | 'db' | 'jobs'>
  & {
    hub: Broadcaster;
    acoustId: AcoustIdService;
    library: LibraryService;
  };

/**
 * "Identify files without MusicBrainz ids" (issue 26 §2): an administrator's job that fingerprints
 * every library file whose track has no recording id, looks it up on AcoustID and proposes the
 * recording's id, title and artist, per album. Nothing is written until the administrator accepts
 * an album's proposals; then the files' tags get the ids (and the proposed title and artist) and
 * the library rescans them. The run records its progress and the last track it handled, so a run
 * interrupted by a restart goes on where it stopped.
 */

export const IDENTIFY_QUEUE = 'library-identify';
const BATCH = 20;
/** AcoustID matches below this score are not proposed. */
const MIN_SCORE = 0.7;

export function presentRun(r: IdentifyRun | undefined) {
  if (!r) return null;
  return {
    id: r.id,
    status: r.status,
    total: r.total,
    processed: r.processed,
    proposed: r.proposed,
    progress: r.total > 0 ? Math.round((r.processed / r.total) * 1000) / 10 : 100,
    note: r.note,
    startedAt: new Date(r.startedAt).toISOString(),
    finishedAt: r.finishedAt === null ? null : new Date(r.finishedAt).toISOString(),
  };
}

/** Starts a run (or answers the one running). Refused without an AcoustID key or ffmpeg. */
export function startIdentifyRun(ctx: Deps) {
  const running = libraryIdentify.latestRun(ctx.db);
  if (running?.status === 'running') return { started: false, run: presentRun(running) };
  const off = ctx.acoustId.unavailable();
  if (off) throw new ConflictError(`Files cannot be identified: ${off}`, 'ACOUSTID_NOT_CONFIGURED');
  if (!locateFfmpeg(ctx.config.ffmpegPath)) throw new ConflictError('Files cannot be identified: ffmpeg was not found (FFMPEG_PATH or PATH)', 'FFMPEG_MISSING');
  const run = libraryIdentify.startRun(ctx.db, libraryIdentify.countUnidentified(ctx.db), ctx.clock.now());
  ctx.jobs.enqueue(IDENTIFY_QUEUE, { runId: run.id }, { dedupeKey: `identify:${run.id}`, priority: 20 });
  return { started: true, run: presentRun(run) };
}

async function runIdentify(ctx: Deps, runId: number, signal: AbortSignal): Promise<void> {
  const acoustid = ctx.acoustId;
  for (;;) {
    const run = libraryIdentify.run(ctx.db, runId);
    if (!run || run.status !== 'running') return;
    const batch = libraryIdentify.unidentifiedAfter(ctx.db, run.cursor, BATCH);
    if (batch.length === 0) {
      libraryIdentify.finishRun(ctx.db, runId, 'done', null, ctx.clock.now());
      broadcast(ctx, runId);
      return;
    }
    for (const file of batch) {
      signal.throwIfAborted();
      let proposed = false;
      if (fs.existsSync(file.path)) {
        const found = await acoustid.identify(file.path, file.durationMs, signal);
        if (found.status === 'skipped') {
          // No key, no ffmpeg, AcoustID refusing: the run stops and says why; a new run starts over.
          libraryIdentify.finishRun(ctx.db, runId, 'failed', found.note, ctx.clock.now());
          broadcast(ctx, runId);
          throw new PermanentJobError(found.note);
        }
        const best = found.matches
          .filter((m) => m.score >= MIN_SCORE)
          .flatMap((m) => m.recordings.filter((r) => r.title).map((r) => ({ r, score: m.score })))
          // Of equally good recordings, the one whose title is most like the file's.
          .sort((a, b) => b.score - a.score || similarity(file.title, b.r.title) - similarity(file.title, a.r.title))[0];
        if (best) {
          libraryIdentify.propose(
            ctx.db,
            {
              path: file.path,
              trackId: file.trackId,
              albumId: file.albumId,
              albumTitle: file.albumTitle,
              currentTitle: file.title,
              currentArtist: file.artistName,
              recordingMbid: best.r.id,
              title: best.r.title!,
              artistName: best.r.artist,
              artistMbid: best.r.artistIds[0] ?? null,
              score: best.score,
            },
            ctx.clock.now(),
          );
          proposed = true;
        }
      }
      libraryIdentify.advance(ctx.db, runId, file.trackId, proposed);
      broadcast(ctx, runId);
    }
  }
}

function broadcast(ctx: Deps, runId: number): void {
  ctx.hub.broadcast('library', 'identify_progress', { run: presentRun(libraryIdentify.run(ctx.db, runId)) });
}

/** Pending proposals grouped by album, for the administrator to accept or reject per album. */
export function identifyProposals(ctx: Deps) {
  const albums = new Map<string, { albumId: number | null; albumTitle: string | null; proposals: ReturnType<typeof presentProposal>[] }>();
  for (const p of libraryIdentify.pending(ctx.db)) {
    const key = String(p.albumId);
    let a = albums.get(key);
    if (!a) albums.set(key, (a = { albumId: p.albumId, albumTitle: p.albumTitle, proposals: [] }));
    a.proposals.push(presentProposal(p));
  }
  return { run: presentRun(libraryIdentify.latestRun(ctx.db)), albums: [...albums.values()] };
}

function presentProposal(p: IdentifyProposal) {
  return {
    id: p.id,
    path: p.path,
    trackId: p.trackId,
    current: { title: p.currentTitle, artistName: p.currentArtist },
    proposed: { recordingMbid: p.recordingMbid, title: p.title, artistName: p.artistName, artistMbid: p.artistMbid },
    score: p.score,
  };
}

/** The formats an accepted identity is written into besides MP3 (taggedCopy.ts). */
const IDENTITY_WRITTEN = new Set(['flac', 'ogg', 'oga', 'opus', 'm4a', 'mp4']);

/** Writes the accepted ids, title and artist into a file's tags; its other tags and audio stay. */
async function writeIdentity(ctx: Deps, p: IdentifyProposal): Promise<void> {
  const ext = path.extname(p.path).slice(1).toLowerCase();
  if (ext === 'mp3') {
    const userDefinedText = [{ description: 'MusicBrainz Track Id', value: p.recordingMbid }];
    if (p.artistMbid) userDefinedText.push({ description: 'MusicBrainz Artist Id', value: p.artistMbid });
    await writeId3OffThread(p.path, {
      title: p.title,
      ...(p.artistName && { artist: p.artistName }),
      userDefinedText,
      uniqueFileIdentifier: [{ ownerIdentifier: 'http://musicbrainz.org', identifier: Buffer.from(p.recordingMbid, 'latin1') }],
    });
    return;
  }
  if (!IDENTITY_WRITTEN.has(ext)) throw new ConflictError(`Tonearm cannot write tags into .${ext} files`);
  const ffmpeg = locateFfmpeg(ctx.config.ffmpegPath);
  if (needsFfmpeg(ext) && !ffmpeg) throw new ConflictError('ffmpeg was not found (FFMPEG_PATH or PATH), so the tags cannot be written');
  const temp = path.join(path.dirname(p.path), `.${path.basename(p.path)}.tonearm-identify.part`);
  const meta: [string, string | null][] = [
    ['title', p.title],
    ['artist', p.artistName],
    ['MUSICBRAINZ_TRACKID', p.recordingMbid],
    ['MUSICBRAINZ_ARTISTID', p.artistMbid],
  ];
  try {
    await writeTaggedCopy(p.path, temp, ext, meta, ffmpeg);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    const said = err instanceof Error ? err.message.trim().split('\n').at(-1) : String(err);
    throw new ConflictError(`Writing the tags of ${p.path} failed: ${said}`);
  }
  fs.renameSync(temp, p.path);
}

/**
 * Accepts (writes) or rejects the pending proposals of one album (`albumId` null: files of no
 * album), optionally only some of them. Answers what was decided; the written files are rescanned.
 */
export async function decideAlbum(ctx: Deps, albumId: number | null, decision: 'accept' | 'reject', only?: number[]) {
  const pending = libraryIdentify.pending(ctx.db, albumId).filter((p) => !only || only.includes(p.id));
  if (pending.length === 0) throw new NotFoundError('No pending proposals for this album');
  const written: string[] = [];
  const failed: { path: string; error: string }[] = [];
  for (const p of pending) {
    if (decision === 'reject') {
      libraryIdentify.decide(ctx.db, p.id, 'rejected', ctx.clock.now());
      continue;
    }
    try {
      await writeIdentity(ctx, p);
      libraryIdentify.decide(ctx.db, p.id, 'accepted', ctx.clock.now());
      written.push(p.path);
    } catch (err) {
      failed.push({ path: p.path, error: err instanceof Error ? err.message : String(err) });
    }
  }
  if (written.length) ctx.library.scans.requestScan('quick', 'identified by fingerprint', written);
  return { success: failed.length === 0, decided: decision === 'reject' ? pending.length : written.length, failed };
}

export function startIdentify(ctx: Deps): void {
  ctx.jobs.register<{ runId: number }>(IDENTIFY_QUEUE, {
    concurrency: 1,
    maxAttempts: 5,
    backoff: { baseMs: 30_000, maxMs: 3600_000 },
    handler: (job) => runIdentify(ctx, job.payload.runId, job.signal),
  });
}
