import { flows } from '../../db/flows.js';
import { favorites, playEvents, playQueues } from '../../db/libraryUserData.js';
import { LibraryReader } from '../../db/libraryReads.js';
import { SubsonicUserData } from '../../db/subsonicUserData.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { forwardNowPlaying, forwardPlay, type ScrobblePlay, type Deps as ScrobblingServiceDeps } from '../scrobbling/service.js';
import type { ListenedKind, NowPlaying, Play, PlayCounts, PlayOutcome, QueueToSave } from './types.js';
import type { Kernel } from '../../kernel.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'db'> & ScrobblingServiceDeps;

export type { ListenedKind, NowPlaying, Play, PlayCounts, PlayOutcome, QueueToSave } from './types.js';


/** What the scrobbling outbox stores of a play (nothing else). */
function scrobbled(p: NowPlaying, artist: string): ScrobblePlay {
  return {
    artist, title: p.title, album: p.album, durationMs: p.durationMs, trackMbid: p.trackMbid, albumMbid: p.albumMbid,
    artistMbid: p.artistMbid, playedAt: p.playedAt,
  };
}

const kindName = (kind: ListenedKind) => `${kind[0]!.toUpperCase()}${kind.slice(1)}`;

/**
 * What a user does while listening, whichever door it comes through (`/api` for the web player,
 * `/rest` for Subsonic clients): plays and "now playing", favourites (= stars), ratings, the saved
 * play queue and bookmarks. The rules live here once, so both doors keep them alike.
 */
export class ListeningService {
  private readonly userData: SubsonicUserData;
  private readonly reader: LibraryReader;

  constructor(private readonly ctx: Deps) {
    this.userData = new SubsonicUserData(ctx.db);
    this.reader = new LibraryReader(ctx.db);
  }

  /**
   * recordHistory (reference §3.8): a flow with recordHistory off keeps its tracks out of the owner's
   * listening history. A play of a file such a flow of `userId` downloaded (not a library track that
   * flow reused) is then neither a play event nor a scrobble.
   */
  keptOutOfHistory(userId: number, trackId: number | null): boolean {
    return trackId !== null && flows.downloadedOutsideHistory(this.ctx.db, userId, trackId);
  }

  /**
   * Records a finished play and forwards it to every linked scrobbling service through the outbox
   * (no network call here), in one transaction. `counts`: also count it in the track's and album's
   * play counts (Subsonic clients).
   */
  recordPlay(userId: number, play: Play, counts?: PlayCounts): PlayOutcome {
    if (this.keptOutOfHistory(userId, play.trackId)) return { recorded: false };
    const { db, clock } = this.ctx;
    const now = clock.now();
    const id = db
      .transaction(() => {
        const eventId =
          counts && play.trackId !== null
            ? this.userData.recordPlay(userId, { ...play, trackId: play.trackId, albumId: counts.albumId }, now)
            : playEvents.record(db, userId, play, now);
        if (play.artist) forwardPlay(this.ctx, userId, eventId, scrobbled(play, play.artist));
        return eventId;
      })
      .immediate();
    return { recorded: true, id };
  }

  /** A track has just started: "now playing" to every linked scrobbling service, best effort. */
  nowPlaying(userId: number, play: NowPlaying): void {
    if (play.artist) forwardNowPlaying(this.ctx, userId, scrobbled(play, play.artist));
  }

  /**
   * Adds or removes favourites (= Subsonic stars; one store for both doors). Every target must exist,
   * checked before anything changes.
   */
  setFavorites(userId: number, targets: { kind: ListenedKind; id: number }[], favorite: boolean): void {
    for (const t of targets) {
      const exists = t.kind === 'artist' ? this.reader.artist(t.id) : t.kind === 'album' ? this.reader.album(t.id) : this.reader.track(t.id);
      if (!exists) throw new NotFoundError(`${kindName(t.kind)} not found`);
    }
    const now = this.ctx.clock.now();
    for (const t of targets) favorites.set(this.ctx.db, userId, t.kind, t.id, favorite, now);
  }

  /** 1 to 5 stars; 0 removes the rating. */
  setRating(userId: number, kind: ListenedKind, id: number, rating: number): void {
    if (!Number.isInteger(rating) || rating < 0 || rating > 5) throw new ValidationError('rating must be 0 to 5', 'VALIDATION_ERROR');
    this.userData.setRating(userId, kind, id, rating);
  }

  /** Replaces the user's saved play queue (the same queue on /api and /rest); an empty list clears it. */
  saveQueue(userId: number, q: QueueToSave): void {
    const missing = q.trackIds.filter((id) => !this.reader.track(id));
    if (missing.length > 0) throw new ValidationError(`Unknown track ids: ${missing.slice(0, 10).join(', ')}`, 'UNKNOWN_TRACK');
    if (q.trackIds.length > 0 && q.currentIndex >= q.trackIds.length) throw new ValidationError('currentIndex is outside the queue', 'VALIDATION_ERROR');
    playQueues.save(this.ctx.db, userId, q.trackIds, q.currentIndex, q.positionMs, q.changedBy, this.ctx.clock.now());
  }

  /** Saves (or moves) the bookmark of a track. */
  saveBookmark(userId: number, trackId: number, positionMs: number, comment: string | null): void {
    if (positionMs < 0) throw new ValidationError('position must not be negative', 'VALIDATION_ERROR');
    this.userData.saveBookmark(userId, trackId, positionMs, comment, this.ctx.clock.now());
  }

  /** False when the track had no bookmark. */
  deleteBookmark(userId: number, trackId: number): boolean {
    return this.userData.deleteBookmark(userId, trackId);
  }
}
