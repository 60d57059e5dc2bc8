import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMigrations, openDatabase } from '../../server/db/connection.js';

describe('the Jellyfin migration', () => {
  it('keeps the track matches made before it and lets matches by MusicBrainz id in', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-jellyfin-mig-'));
    const file = path.join(dir, 'tonearm.db');
    const all = loadMigrations();
    const jellyfin = all.find((m) => m.name === 'jellyfin')!;
    const old = openDatabase(file, { migrations: all.filter((m) => m.version < jellyfin.version) });
    old.prepare("INSERT INTO library_tracks (identity_key, title, sort_name, artist_name, artist_sort_name, created_at, updated_at) VALUES ('t:1', 'A', 'a', 'B', 'b', 0, 0)").run();
    const trackId = old.prepare('SELECT id FROM library_tracks').pluck().get() as number;
    old.prepare("INSERT INTO playback_track_matches (destination, account, track_id, remote_id, method, matched_at) VALUES ('navidrome', 'x|u', ?, 'song-1', 'path', 5)").run(trackId);
    expect(() => old.prepare("INSERT INTO playback_track_matches (destination, account, track_id, remote_id, method, matched_at) VALUES ('jellyfin', 'x|user:', ?, 'i', 'mbid', 5)").run(trackId)).toThrow(/CHECK/);
    old.close();
    const db = openDatabase(file, { migrations: all });
    expect(db.prepare('SELECT destination, account, track_id, remote_id, method, matched_at FROM playback_track_matches').all()).toEqual([
      { destination: 'navidrome', account: 'x|u', track_id: trackId, remote_id: 'song-1', method: 'path', matched_at: 5 },
    ]);
    db.prepare("INSERT INTO playback_track_matches (destination, account, track_id, remote_id, method, matched_at) VALUES ('jellyfin', 'x|user:', ?, 'i', 'mbid', 5)").run(trackId);
    // Still cleared with the track.
    db.prepare('DELETE FROM library_tracks WHERE id = ?').run(trackId);
    expect(db.prepare('SELECT COUNT(*) FROM playback_track_matches').pluck().get()).toBe(0);
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
