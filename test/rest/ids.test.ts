import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entityId, keyOf, parseId, playlistId } from '../../server/rest/ids.js';
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
