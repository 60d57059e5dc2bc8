import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { waitForScans } from '../rest/harness.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  asList,
  configureNavidrome,
  makeLibrary,
  publications,
  startSupysonic,
  staticPlaylists,
  subsonic,
  supysonicMissing,
  trackIdsByTitle,
  waitFor,
  type Supysonic,
} from './helpers.js';

/**
 * The publishing client against a real Subsonic server: Debian's supysonic (API 1.10.2, password
 * authentication only, createPlaylist answering an empty ok), sharing Tonearm's music folder.
 */
const missing = supysonicMissing();
if (missing) console.warn(`[playback] skipping the supysonic tests: ${missing}`);

describe.skipIf(missing !== null)('publishing playlists to supysonic (a real Subsonic server)', () => {
  let dir: string;
  let music: string;
  let server: TestServer;
  let supy: Supysonic;
  let ids: Map<string, number>;
  let adminId: number;
  const id = (n: number) => ids.get(`Night Song ${n}`)!;
  const remoteLists = async () => asList((await subsonic(supy, 'getPlaylists')).playlists?.playlist) as Array<{ id: string; name: string; comment?: string }>;
  const remoteTitles = async (remoteId: string) =>
    asList((await subsonic(supy, 'getPlaylist', { id: remoteId })).playlist.entry).map((e: any) => e.title as string);
  const settled = (listId: number) =>
    waitFor(
      `publication of ${listId}`,
      () => {
        const row = publications(server).find((r) => r.playlist_id === String(listId));
        return row && row.done_seq >= row.want_seq && row.remote_id ? row : null;
      },
      30_000,
    );

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-playback-supy-'));
    music = path.join(dir, 'music');
    makeLibrary(music, 8, 4);
    supy = await startSupysonic(path.join(dir, 'supysonic'), music);
    // One more file that only Tonearm has scanned: supysonic knows it after the scan Tonearm asks for.
    writeTaggedMp3(path.join(music, 'Late Arrivals/Dawn/01 - Night Song 9.mp3'), makeMp3Template(path.join(dir, 'tpl')), {
      title: 'Night Song 9',
      artist: 'Late Arrivals',
      album: 'Dawn',
      track: 1,
    });
    server = await startTestServer({ musicDirs: [music] });
    await waitForScans(server);
    ids = trackIdsByTitle(server);
    expect(ids.size).toBe(9);
    adminId = server.ctx.users.findByUsername('admin')!.id;
    await configureNavidrome(server, supy.url, supy.username, supy.password);
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await supy?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('tests the connection with password authentication (supysonic refuses tokens)', async () => {
    const res = await server.api('/api/settings/playback/navidrome/test', { method: 'POST', token: server.admin.token, json: {} });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ success: true, version: '1.10.2', authentication: 'password', canScan: true });
  });

  it('publishes a static playlist, asking supysonic to scan for the track it did not know', async () => {
    const before = asList((await subsonic(supy, 'search3', { query: 'Night Song 9' })).searchResult3?.song);
    expect(before).toHaveLength(0);
    const listId = staticPlaylists(server).create(adminId, 'Night drive', [id(9), id(2), id(5), id(1)]);
    const row = await settled(listId);
    const lists = await remoteLists();
    expect(lists.filter((l) => l.name === 'Night drive')).toHaveLength(1);
    const remote = lists.find((l) => l.name === 'Night drive')!;
    expect(row.remote_id).toBe(remote.id);
    expect(remote.comment).toContain(`Tonearm static:${listId}`);
    expect(await remoteTitles(remote.id)).toEqual(['Night Song 9', 'Night Song 2', 'Night Song 5', 'Night Song 1']);
    expect(row).toMatchObject({ matched_count: 4, track_count: 4 });
  });

  it('follows changes and deletion', async () => {
    const lists = staticPlaylists(server);
    const listId = lists.create(adminId, 'Harbour mix', [id(1), id(2), id(3), id(4)]);
    const first = await settled(listId);
    lists.update(adminId, listId, { name: 'Harbour mix II', trackIds: [id(1), id(4), id(7), id(8), id(2)] });
    await waitFor('change published', async () => {
      const row = publications(server).find((r) => r.playlist_id === String(listId))!;
      return row.done_seq >= row.want_seq && (await remoteLists()).some((l) => l.name === 'Harbour mix II');
    }, 30_000);
    const named = (await remoteLists()).filter((l) => l.name.startsWith('Harbour mix'));
    expect(named.map((l) => [l.id, l.name])).toEqual([[first.remote_id, 'Harbour mix II']]);
    expect(await remoteTitles(first.remote_id!)).toEqual(['Night Song 1', 'Night Song 4', 'Night Song 7', 'Night Song 8', 'Night Song 2']);

    lists.delete(adminId, listId);
    await waitFor('deleted there', async () => !(await remoteLists()).some((l) => l.id === first.remote_id), 30_000);
    // supysonic can answer getPlaylists without the list before Tonearm has read its answer to the
    // delete and removed the row (both run in this process): wait for that step as well.
    await waitFor('publication row removed', () => !publications(server).some((r) => r.playlist_id === String(listId)), 30_000);
    expect(publications(server).some((r) => r.playlist_id === String(listId))).toBe(false);
  });
});
