import type { FavoriteKind } from '../../db/libraryUserData.js';

/** What can be favourited (= starred) and rated: the same three kinds on /api and /rest. */
export type ListenedKind = FavoriteKind;

/** A finished play, as the web player (`POST /api/play-events`) or a Subsonic client (`scrobble`) reports it. */
export interface Play {
  /** The library track, when the play is of one. */
  trackId: number | null;
  title: string;
  artist: string | null;
  album: string | null;
  artistMbid: string | null;
  albumMbid: string | null;
  trackMbid: string | null;
  durationMs: number | null;
  /** When the track started, milliseconds since the epoch. */
  playedAt: number;
  /** Who reported it: `web`, `subsonic`, ... */
  source: string;
}

/**
 * Play counts per track and album (the Subsonic `playCount`/`played` of a song or album), kept for
 * plays reported through /rest.
 */
export interface PlayCounts {
  albumId: number | null;
}

export type PlayOutcome =
  /** Recorded in the history (and forwarded to the linked scrobbling services). */
  | { recorded: true; id: number }
  /** Played, but kept out of the history: a track of a flow with recordHistory off. */
  | { recorded: false };

/** A track that has just started: sent to the linked scrobbling services, never recorded. */
export type NowPlaying = Omit<Play, 'trackId' | 'source'>;

export interface QueueToSave {
  trackIds: number[];
  currentIndex: number;
  positionMs: number;
  /** The client that saved it (Subsonic `changedBy`). */
  changedBy: string | null;
}
