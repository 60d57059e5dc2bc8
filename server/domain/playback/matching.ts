import path from 'node:path';
import type { LocalTrack, MatchMethod, PlaybackRepository } from '../../db/playback.js';

/**
 * Matching library tracks to a destination's own songs, shared by the destinations that search
 * their server (Subsonic servers, Jellyfin): the same file (its path relative to the music folder),
 * then the same MusicBrainz recording id, then the same artist, album and title closest in
 * duration. Matches are cached per destination account; tracks the server does not know make it
 * scan (at most every few minutes) before what it knows is matched.
 */

/** A song on the destination, as matching needs it. */
export interface MatchCandidate {
  id: string;
  title: string;
  artist: string;
  album: string;
  /** Relative to the server's music folder, or the server's own absolute path. */
  path: string | null;
  durationSeconds: number | null;
  musicBrainzId: string | null;
}

/** Where matching looks: one destination account. */
export interface MatchSource {
  destination: string;
  account: string;
  repo: PlaybackRepository;
  now: () => number;
  /** Candidates for one track (a search by its title). */
  search(track: LocalTrack): Promise<MatchCandidate[]>;
  /** Every song of the server, or null when it is too large or will not list. */
  all(): Promise<MatchCandidate[] | null>;
  /** Asks the server to scan and waits for it (up to its timeout); false when it cannot scan. */
  scan(): Promise<boolean>;
}

/** Above this many tracks to match, the server's whole song list is read once instead of one search per track. */
export const BULK_MATCH_FROM = 40;
/** A scan asked for less than this long ago is not asked for again. */
export const SCAN_COOLDOWN_MS = 5 * 60_000;

/** Lower case, accents and punctuation gone, a leading "the" dropped: how names are compared. */
export function normalize(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .replace(/^the /, '');
}

/** The part of a local file's path a server shows: relative to its music folder. */
export function relativePath(track: LocalTrack): string | null {
  if (!track.path) return null;
  const rel = track.root ? path.relative(track.root, track.path) : track.path.split(/[\\/]/).slice(-3).join('/');
  return rel.split(path.sep).join('/');
}

function samePath(local: string, remote: string | null): boolean {
  if (!remote) return false;
  const r = remote.replace(/\\/g, '/').replace(/^\/+/, '');
  return r === local || r.endsWith(`/${local}`) || local.endsWith(`/${r}`);
}

function sameTags(track: LocalTrack, song: MatchCandidate): boolean {
  if (normalize(track.title) !== normalize(song.title)) return false;
  if (normalize(track.artist) !== normalize(song.artist)) return false;
  return !track.album || !song.album || normalize(track.album) === normalize(song.album);
}

/** The best song for a track among candidates: same path, then same MusicBrainz recording, then same tags closest in duration. */
export function bestMatch<T extends MatchCandidate>(track: LocalTrack, songs: T[]): { song: T; method: MatchMethod } | null {
  const rel = relativePath(track);
  if (rel) {
    const byPath = songs.find((s) => samePath(rel, s.path));
    if (byPath) return { song: byPath, method: 'path' };
  }
  const mbid = track.mbid?.toLowerCase();
  if (mbid) {
    const byId = songs.find((s) => s.musicBrainzId?.toLowerCase() === mbid);
    if (byId) return { song: byId, method: 'mbid' };
  }
  const tagged = songs.filter((s) => sameTags(track, s));
  if (tagged.length === 0) return null;
  const seconds = track.durationMs / 1000;
  tagged.sort((a, b) => Math.abs((a.durationSeconds ?? seconds) - seconds) - Math.abs((b.durationSeconds ?? seconds) - seconds));
  return { song: tagged[0]!, method: 'tags' };
}

/** Track ids → remote song ids, from the cache, then the server (after its scan when tracks are new to it). */
export async function matchTracksIn(source: MatchSource, trackIds: number[]): Promise<Map<number, string>> {
  const { repo, destination, account } = source;
  const cached = repo.matches(destination, account);
  const result = new Map<number, string>();
  const missing: number[] = [];
  for (const id of new Set(trackIds)) {
    const remote = cached.get(id);
    if (remote) result.set(id, remote);
    else missing.push(id);
  }
  if (missing.length === 0) return result;
  let tracks = repo.tracks(missing);
  let found = await findOnServer(source, tracks);
  if (found.size < tracks.length && source.now() - (repo.destination(destination).last_scan_at ?? 0) >= SCAN_COOLDOWN_MS) {
    // Tracks the server does not know yet: they may be new files it has not scanned.
    repo.scanned(destination, source.now());
    if (await source.scan()) {
      tracks = tracks.filter((t) => !found.has(t.id));
      const more = await findOnServer(source, tracks);
      found = new Map([...found, ...more]);
    }
  }
  repo.putMatches(destination, account, [...found].map(([trackId, m]) => ({ trackId, remoteId: m.id, method: m.method })), source.now());
  for (const [trackId, m] of found) result.set(trackId, m.id);
  return result;
}

async function findOnServer(source: MatchSource, tracks: LocalTrack[]): Promise<Map<number, { id: string; method: MatchMethod }>> {
  const found = new Map<number, { id: string; method: MatchMethod }>();
  if (tracks.length === 0) return found;
  if (tracks.length >= BULK_MATCH_FROM) {
    const all = await source.all();
    if (all) {
      for (const track of tracks) {
        const m = bestMatch(track, all);
        if (m) found.set(track.id, { id: m.song.id, method: m.method });
      }
      return found;
    }
  }
  for (const track of tracks) {
    const m = bestMatch(track, await source.search(track));
    if (m) found.set(track.id, { id: m.song.id, method: m.method });
  }
  return found;
}
