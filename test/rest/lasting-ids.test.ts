import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, openDatabase, type Db } from '../../server/db/connection.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { RestClient } from './harness.js';

const schemaOf = (db: Db, table: string) =>
  (db.prepare("SELECT type, name FROM sqlite_master WHERE tbl_name = ? AND name NOT LIKE 'sqlite_autoindex%' ORDER BY type, name").all(table) as { type: string; name: string }[])
    .map((r) => `${r.type}:${r.name}`);

describe('migration 033 keeps every row and stops id reuse', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-lasting-ids-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('playlists (with their tracks), radio stations and podcasts survive the rebuild; deleted ids are not handed out again', () => {
    const file = path.join(dir, 'tonearm.db');
    const all = loadMigrations();
    const old = openDatabase(file, { migrations: all.filter((m) => m.version < 33) });
    old.prepare("INSERT INTO users (id, username, password_hash, password_enc, role, created_at, updated_at) VALUES (7, 'ann', 'h', 'e', 'user', 1, 1)").run();
    old.prepare("INSERT INTO static_playlists (id, user_id, name, comment, public, created_at, updated_at) VALUES (1, 7, 'One', 'c1', 1, 10, 11), (2, 7, 'Two', '', 0, 20, 21)").run();
    old.prepare('INSERT INTO static_playlist_tracks (playlist_id, position, track_id) VALUES (1, 0, 100), (1, 1, 101), (2, 0, 102)').run();
    old.prepare("INSERT INTO internet_radio_stations (id, name, stream_url, home_page_url, created_at, updated_at) VALUES (3, 'Radio', 'http://r/s', NULL, 5, 6)").run();
    old.prepare("INSERT INTO podcast_channels (id, url, title, status, created_at) VALUES (4, 'http://p/feed', 'Pod', 'completed', 7)").run();
    old.prepare("INSERT INTO podcast_episodes (id, channel_id, guid, title, enclosure_url, status, created_at) VALUES (9, 4, 'g1', 'Ep', 'http://p/1.mp3', 'new', 8)").run();
    const before = ['static_playlists', 'static_playlist_tracks', 'internet_radio_stations', 'podcast_channels', 'podcast_episodes'].map((t) => schemaOf(old, t));
    old.close();

    // Migration 033 rebuilds the tables with the same schema (later migrations may add indexes)...
    const at33 = openDatabase(file, { migrations: all.filter((m) => m.version <= 33) });
    const after = ['static_playlists', 'static_playlist_tracks', 'internet_radio_stations', 'podcast_channels', 'podcast_episodes'].map((t) => schemaOf(at33, t));
    expect(after).toEqual(before);
    at33.close();

    // ...and every row survives to the newest schema.
    const db = openDatabase(file, { migrations: all });
    expect(db.prepare('SELECT * FROM static_playlists ORDER BY id').all()).toEqual([
      { id: 1, user_id: 7, name: 'One', comment: 'c1', public: 1, created_at: 10, updated_at: 11 },
      { id: 2, user_id: 7, name: 'Two', comment: '', public: 0, created_at: 20, updated_at: 21 },
    ]);
    expect(db.prepare('SELECT playlist_id, position, track_id FROM static_playlist_tracks ORDER BY playlist_id, position').all()).toEqual([
      { playlist_id: 1, position: 0, track_id: 100 },
      { playlist_id: 1, position: 1, track_id: 101 },
      { playlist_id: 2, position: 0, track_id: 102 },
    ]);
    expect(db.prepare('SELECT id, name FROM internet_radio_stations').all()).toEqual([{ id: 3, name: 'Radio' }]);
    expect(db.prepare('SELECT id, channel_id, guid FROM podcast_episodes').all()).toEqual([{ id: 9, channel_id: 4, guid: 'g1' }]);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name LIKE '%_032'").all()).toEqual([]);
    expect(db.pragma('foreign_key_check')).toEqual([]);

    // Cascades still work against the rebuilt parents.
    db.prepare('DELETE FROM static_playlists WHERE id = 2').run();
    expect(db.prepare('SELECT COUNT(*) FROM static_playlist_tracks WHERE playlist_id = 2').pluck().get()).toBe(0);
    db.prepare('DELETE FROM podcast_channels WHERE id = 4').run();
    expect(db.prepare('SELECT COUNT(*) FROM podcast_episodes').pluck().get()).toBe(0);
    db.prepare('DELETE FROM internet_radio_stations WHERE id = 3').run();

    // The highest ids were just deleted; new rows get fresh ones.
    expect(db.prepare("INSERT INTO static_playlists (user_id, name, created_at, updated_at) VALUES (7, 'Three', 1, 1) RETURNING id").pluck().get()).toBe(3);
    expect(db.prepare("INSERT INTO internet_radio_stations (name, stream_url, created_at, updated_at) VALUES ('R2', 'http://r/2', 1, 1) RETURNING id").pluck().get()).toBe(4);
    expect(db.prepare("INSERT INTO podcast_channels (url, status, created_at) VALUES ('http://p/2', 'new', 1) RETURNING id").pluck().get()).toBe(5);
    expect(
      db.prepare("INSERT INTO podcast_episodes (channel_id, guid, title, enclosure_url, status, created_at) VALUES (5, 'g', 't', 'http://p/e', 'new', 1) RETURNING id").pluck().get(),
    ).toBe(10);
    db.close();
  });
});

describe('/rest ids are never reused after a delete', () => {
  let server: TestServer;
  let admin: RestClient;
  beforeAll(async () => {
    server = await startTestServer({ env: { TONEARM_LIBRARY_WATCH: '0', TONEARM_SCAN_ON_START: '0' } });
    admin = new RestClient(server, { username: 'admin', password: 'correct horse battery' });
  });
  afterAll(() => server?.stop());

  it('a deleted playlist id is not given to the next playlist', async () => {
    await admin.ok('createPlaylist', { name: 'first' });
    const second = (await admin.ok('createPlaylist', { name: 'second' })).playlist.id as string;
    await admin.ok('deletePlaylist', { id: second });
    const third = (await admin.ok('createPlaylist', { name: 'third' })).playlist.id as string;
    expect(third).not.toBe(second);
    expect((await admin.json('getPlaylist', { id: second })).error.code).toBe(70);
  });

  it('a deleted internet radio station id is not given to the next station', async () => {
    await admin.ok('createInternetRadioStation', { name: 'A', streamUrl: 'http://radio.example/a' });
    const stationId = async (name: string) =>
      ((await admin.ok('getInternetRadioStations')).internetRadioStations.internetRadioStation as { id: string; name: string }[]).find((s) => s.name === name)!.id;
    const b = (await admin.ok('createInternetRadioStation', { name: 'B', streamUrl: 'http://radio.example/b' }), await stationId('B'));
    await admin.ok('deleteInternetRadioStation', { id: b });
    await admin.ok('createInternetRadioStation', { name: 'C', streamUrl: 'http://radio.example/c' });
    expect(await stationId('C')).not.toBe(b);
  });
});
