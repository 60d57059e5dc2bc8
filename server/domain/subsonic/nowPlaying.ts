/** What each user's players are playing now (scrobble with submission=false), kept in memory. */
export interface NowPlayingEntry {
  userId: number;
  username: string;
  trackId: number;
  playerName: string;
  playerId: number;
  startedAt: number;
}

const STALE_MS = 15 * 60_000;

export class NowPlaying {
  private readonly entries = new Map<string, NowPlayingEntry>();
  private readonly playerIds = new Map<string, number>();

  constructor(private readonly clock: { now(): number }) {}

  set(userId: number, username: string, playerName: string, trackId: number): void {
    const key = `${userId}\u0000${playerName}`;
    let playerId = this.playerIds.get(key);
    if (playerId === undefined) this.playerIds.set(key, (playerId = this.playerIds.size + 1));
    this.entries.set(key, { userId, username, trackId, playerName, playerId, startedAt: this.clock.now() });
  }

  /** Clears a player's entry once its track was submitted as played. */
  finished(userId: number, playerName: string, trackId: number): void {
    const key = `${userId}\u0000${playerName}`;
    if (this.entries.get(key)?.trackId === trackId) this.entries.delete(key);
  }

  list(): NowPlayingEntry[] {
    const now = this.clock.now();
    for (const [key, e] of this.entries) if (now - e.startedAt > STALE_MS) this.entries.delete(key);
    return [...this.entries.values()].sort((a, b) => b.startedAt - a.startedAt);
  }
}
