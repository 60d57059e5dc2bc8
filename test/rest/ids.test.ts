import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, openDatabase } from '../../server/db/connection.js';
import { createHash } from 'node:crypto';
import { LibraryWriter } from '../../server/db/libraryWrites.js';
import { entityId, keyOf, parseId, playlistId } from '../../server/rest/ids.js';
import { makeAudioFile } from '../fixtures/audio.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeLibrary, RestClient, waitForScans, type Fixture } from './harness.js';

describe('the id scheme (frozen: changing it breaks every client that synced)', () => {
  it('derives fixed ids from identity keys and playlist ids', () => {
    expect(keyOf('mbid:art-bjork')).toBe('2mkT4RsRWySYbP');
    expect(entityId('artist', 'mbid:art-bjork')).toBe('ar-2mkT4RsRWySYbP');
    expect(entityId('album', 'album:rg:rg-post')).toMatch(/^al-[0-9A-Za-z]{14}$/);
    expect(entityId('track', 'track:x')).toBe(`tr-${keyOf('track:x')}`);
    expect(playlistId(1)).toBe('pl-1');
    expect(playlistId(62)).toBe('pl-10');
    expect(playlistId(123456789)).toBe('pl-8M0kX');
    expect(parseId('pl-8M0kX')).toEqual({ kind: 'playlist', id: 123456789 });
    expect(parseId('ar-2mkT4RsRWySYbP')).toEqual({ kind: 'artist', key: '2mkT4RsRWySYbP' });
    expect(parseId('ar-short')).toBeNull();
    expect(parseId('xx-2mkT4RsRWySYbP')).toBeNull();
    expect(parseId('123')).toBeNull();
  });

  it('is the first 80 bits of the identity key\'s SHA-256 in base 62, for every kind of key', () => {
    const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    const reference = (identityKey: string) => {
      let n = BigInt(`0x${createHash('sha256').update(identityKey, 'utf8').digest('hex').slice(0, 20)}`);
      let out = '';
      while (n > 0n) {
        out = ALPHABET[Number(n % 62n)]! + out;
        n /= 62n;
      }
      return out.padStart(14, '0');
    };
    const keys = ['', 'mbid:art-bjork', 'name:sigur rós', 'track:album:name:x/1/1/ça', '\u{1F3B5}'.repeat(40)];
    for (let i = 0; i < 2000; i++) keys.push(`track:${i}/${(i * 7919) % 13}/${'é'.repeat(i % 5)}`);
    for (const key of keys) expect(keyOf(key)).toBe(reference(key));
  });

  it('is written with each new row by the library writer, and by the trigger for rows inserted without it', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-rest-ids-write-')), 'tonearm.db');
    const db = openDatabase(file);
    const w = new LibraryWriter(db);
    const artistId = w.upsertArtist({ identityKey: 'name:writer artist', name: 'Writer Artist' }, 1);
    const albumId = w.upsertAlbum({ identityKey: 'album:writer', artistId, title: 'Writer', albumArtist: 'Writer Artist' }, 1);
    w.upsertTrack({ identityKey: 'track:writer/1', title: 'One', artistName: 'Writer Artist', artistId, albumId, albumTitle: 'Writer' }, 1);
    db.prepare("INSERT INTO library_artists (identity_key, name, sort_name, created_at, updated_at) VALUES ('name:raw', 'Raw', 'raw', 0, 0)").run();
    for (const table of ['library_artists', 'library_albums', 'library_tracks']) {
      const rows = db.prepare(`SELECT identity_key, subsonic_key FROM ${table}`).all() as { identity_key: string; subsonic_key: string }[];
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) expect(r.subsonic_key).toBe(keyOf(r.identity_key));
    }
    db.close();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });
});

let fx: Fixture;
let servers: TestServer[] = [];

/** Every id a syncing client would keep: artists, albums, songs, in a stable order. */
async function snapshot(server: TestServer) {
  const c = new RestClient(server, { username: 'admin', password: 'correct horse battery' });
  const r = await c.ok('search3', { query: '""', artistCount: 500, albumCount: 500, songCount: 500 });
  const ids = (list: { id: string; name?: string; title?: string }[]) => list.map((e) => `${e.id} ${e.name ?? e.title}`).sort();
  return { artists: ids(r.searchResult3.artist), albums: ids(r.searchResult3.album), songs: ids(r.searchResult3.song) };
}

beforeAll(() => {
  fx = makeLibrary(fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-rest-ids-')), { bulk: false });
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  fs.rmSync(fx.dir, { recursive: true, force: true });
});

describe('stability', () => {
  it('ids stay identical after a restart, a full rescan and a rebuild from scratch', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-rest-ids-data-'));
    const env = { TONEARM_LIBRARY_WATCH: '0' };
    const first = await startTestServer({ musicDirs: [fx.music], env, dataDir });
    await waitForScans(first);
    const before = await snapshot(first);
    expect(before.songs).toHaveLength(3);
    expect(before.artists).toContain('ar-2mkT4RsRWySYbP Björk');
    await first.stop();

    const restarted = await startTestServer({ musicDirs: [fx.music], env, dataDir });
    servers.push(restarted);
    await waitForScans(restarted);
    expect(await snapshot(restarted)).toEqual(before);

    const res = await restarted.api('/api/library/refresh', { method: 'POST', token: restarted.admin.token, json: { mode: 'full' } });
    expect(res.status).toBe(202);
    await waitForScans(restarted);
    expect(await snapshot(restarted)).toEqual(before);

    const fresh = await startTestServer({ musicDirs: [fx.music], env });
    servers.push(fresh);
    await waitForScans(fresh);
    expect(await snapshot(fresh)).toEqual(before);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});

describe('resolution through the library key columns', () => {
  it('the database derives the same keys as the id scheme, for rows written by the scan worker', async () => {
    const server = await startTestServer({ musicDirs: [fx.music], env: { TONEARM_LIBRARY_WATCH: '0' } });
    servers.push(server);
    await waitForScans(server);
    for (const table of ['library_artists', 'library_albums', 'library_tracks']) {
      const rows = server.ctx.db.prepare(`SELECT identity_key, subsonic_key FROM ${table}`).all() as { identity_key: string; subsonic_key: string }[];
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) expect(r.subsonic_key).toBe(keyOf(r.identity_key));
    }
    const tables = server.ctx.db.prepare("SELECT name FROM sqlite_master WHERE name IN ('subsonic_ids', 'subsonic_id_watermarks')").all();
    expect(tables).toEqual([]);
  });

  it('a new track that reuses a pruned row id resolves at once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-rest-ids-reuse-'));
    const lib = makeLibrary(dir, { bulk: false });
    const server = await startTestServer({ musicDirs: [lib.music], env: { TONEARM_LIBRARY_WATCH: '0' } });
    servers.push(server);
    await waitForScans(server);
    const c = new RestClient(server, { username: 'admin', password: 'correct horse battery' });
    // Resolve something first, as a client would, so any id bookkeeping has caught up.
    const before = (await c.ok('search3', { query: '""', artistCount: 0, albumCount: 0, songCount: 10 })).searchResult3.song as { id: string }[];
    for (const s of before) expect((await c.ok('getSong', { id: s.id })).song.id).toBe(s.id);

    const db = server.ctx.db;
    const newest = db.prepare('SELECT MAX(id) FROM library_tracks').pluck().get() as number;
    const del = await server.api(`/api/library/tracks/${newest}`, { method: 'DELETE', token: server.admin.token });
    expect(await del.json()).toMatchObject({ success: true, pruned: true });
    expect(db.prepare('SELECT id FROM library_tracks WHERE id = ?').get(newest)).toBeUndefined();

    makeAudioFile(path.join(lib.music, 'Newcomer', 'Debut', '01 First Light.mp3'), 'mp3', {
      title: 'First Light', artist: 'Newcomer', albumArtist: 'Newcomer', album: 'Debut', track: 1, date: '2024',
    }, { seconds: 1 });
    const scan = await server.api('/api/library/refresh', { method: 'POST', token: server.admin.token, json: { mode: 'quick' } });
    expect(scan.status).toBe(202);
    await waitForScans(server);

    const row = db.prepare("SELECT id, identity_key FROM library_tracks WHERE title = 'First Light'").get() as { id: number; identity_key: string };
    expect(row.id).toBe(newest); // the rowid really was reused
    const found = (await c.ok('search3', { query: 'First Light', artistCount: 0, albumCount: 0 })).searchResult3.song as { id: string }[];
    expect(found.map((s) => s.id)).toEqual([entityId('track', row.identity_key)]);
    const song = (await c.ok('getSong', { id: found[0]!.id })).song;
    expect(song).toMatchObject({ id: found[0]!.id, title: 'First Light', artist: 'Newcomer' });
    const album = (await c.ok('getAlbum', { id: song.albumId })).album;
    expect(album.song.map((s: { id: string }) => s.id)).toEqual([song.id]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('migration 023 fills the key column of rows written before it', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-rest-ids-mig-')), 'tonearm.db');
    const all = loadMigrations();
    const old = openDatabase(file, { migrations: all.filter((m) => m.version < 23) });
    old.prepare("INSERT INTO library_artists (identity_key, name, sort_name, created_at, updated_at) VALUES ('mbid:art-bjork', 'Björk', 'bjork', 0, 0)").run();
    old.close();
    const db = openDatabase(file, { migrations: all });
    expect(db.prepare('SELECT subsonic_key FROM library_artists').pluck().get()).toBe('2mkT4RsRWySYbP');
    db.prepare("INSERT INTO library_artists (identity_key, name, sort_name, created_at, updated_at) VALUES ('artist:x', 'X', 'x', 0, 0)").run();
    expect(db.prepare("SELECT subsonic_key FROM library_artists WHERE identity_key = 'artist:x'").pluck().get()).toBe(keyOf('artist:x'));
    db.prepare("UPDATE library_artists SET identity_key = 'artist:y' WHERE identity_key = 'artist:x'").run();
    expect(db.prepare("SELECT subsonic_key FROM library_artists WHERE identity_key = 'artist:y'").pluck().get()).toBe(keyOf('artist:y'));
    db.close();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });
});
