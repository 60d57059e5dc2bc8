import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { queueOf } from '../../server/domain/playback/service.js';
import { startNavidromeFake, type NavidromeFake } from '../fakes/navidrome/index.js';
import { waitForScans } from '../rest/harness.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { configureNavidrome, makeLibrary, publications, staticPlaylists, trackIdsByTitle, waitFor } from './helpers.js';

describe('publishing survives a restart', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-playback-restart-'));
  const dataDir = path.join(dir, 'data');
  let server: TestServer | undefined;
  let fake: NavidromeFake | undefined;
  afterAll(async () => {
    await server?.stop();
    await fake?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('publishes a change made while Navidrome was down after Tonearm restarts, once', async () => {
    const music = path.join(dir, 'music');
    const files = makeLibrary(music, 3, 3);
    fs.mkdirSync(dataDir, { recursive: true });
    server = await startTestServer({ musicDirs: [music], dataDir });
    await waitForScans(server);
    const ids = trackIdsByTitle(server);
    fake = await startNavidromeFake({ username: 'tonearm', password: 'restart pass 1' });
    fake.addSongs(files.map((f) => ({ title: f.title, artist: f.artist, album: f.album, path: f.rel, duration: 1, track: f.track })));
    fake.state.down = true;
    await configureNavidrome(server, fake.url, 'tonearm', 'restart pass 1');
    const adminId = server.ctx.users.findByUsername('admin')!.id;
    const listId = staticPlaylists(server).create(adminId, 'Before the storm', [ids.get('Night Song 2')!, ids.get('Night Song 1')!]);
    await waitFor('a failed attempt', () => publications(server!).find((r) => r.playlist_id === String(listId) && r.last_error));
    await server.stop();
    server = undefined;

    fake.state.down = false;
    server = await startTestServer({ musicDirs: [music], dataDir });
    // The stored job keeps its backoff; once it is due it publishes.
    server.clock.advance(60 * 60_000);
    server.ctx.jobs.wake(queueOf('navidrome'));
    await waitFor('published after the restart', () => {
      const row = publications(server!).find((r) => r.playlist_id === String(listId));
      return row && row.done_seq >= row.want_seq && row.remote_id;
    });
    const remote = [...fake.state.playlists.values()].filter((p) => p.name === 'Before the storm');
    expect(remote).toHaveLength(1);
    expect(remote[0]!.songIds.map((sid) => fake!.state.songs.get(sid)!.title)).toEqual(['Night Song 2', 'Night Song 1']);
    expect(fake.state.requests.filter((r) => r.method === 'createPlaylist')).toHaveLength(1);
  });
});
