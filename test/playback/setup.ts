import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { waitForScans } from '../rest/harness.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { body, connectPlex, plexEnv, startPlexFakes, type PlexFakes } from '../plex/helpers.js';
import { makeLibrary, publications, trackIdsByTitle, waitFor, type LibraryFile } from './helpers.js';

/**
 * What every playback destination test starts from: a music folder of tagged mp3s, a Tonearm
 * server that scanned it, the library's track ids, and (for Plex) the plex.tv and Plex Media Server
 * fakes with the account connected and the server, library and publishing chosen.
 */
export interface PlaybackWorld {
  dir: string;
  music: string;
  server: TestServer;
  files: LibraryFile[];
  ids: Map<string, number>;
  adminId: number;
  /** The library id of `Night Song n`. */
  id(n: number): number;
  /** Publications of a destination (the table's rows). */
  rows(): ReturnType<typeof publications>;
  /** Waits until a playlist's newest change is published there and returns its row. */
  settled(playlistId: number | string): Promise<ReturnType<typeof publications>[number]>;
  /** A call as the administrator, the body parsed. */
  admin(p: string, init?: { method?: string; json?: unknown }): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startPlaybackWorld(options: {
  prefix: string;
  destination: string;
  count: number;
  perAlbum: number;
  env?: Record<string, string>;
  /** The MusicBrainz recording id tag of `Night Song n`, if any. */
  mbidOf?: (n: number) => string | undefined;
}): Promise<PlaybackWorld> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `tonearm-playback-${options.prefix}-`));
  const music = path.join(dir, 'music');
  const files = makeLibrary(music, options.count, options.perAlbum, options.mbidOf);
  const server = await startTestServer({ musicDirs: [music], ...(options.env && { env: options.env }) });
  await waitForScans(server);
  const ids = trackIdsByTitle(server);
  expect(ids.size).toBe(options.count);
  const rows = () => publications(server, options.destination);
  return {
    dir,
    music,
    server,
    files,
    ids,
    adminId: server.ctx.users.findByUsername('admin')!.id,
    id: (n) => ids.get(`Night Song ${n}`)!,
    rows,
    settled: (playlistId) =>
      waitFor(`publication of ${playlistId}`, () => {
        const row = rows().find((r) => r.playlist_id === String(playlistId));
        return row && row.done_seq >= row.want_seq && row.remote_id ? row : null;
      }),
    admin: async (p, init = {}) => {
      const res = await server.api(p, { ...init, token: server.admin.token });
      return { status: res.status, body: await body(res) };
    },
    async close() {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface PlexWorld extends PlaybackWorld {
  f: PlexFakes;
  /** The Plex ratingKey of `Night Song n`. */
  rkOf(n: number): string;
  /** Where Plex sees a library file. */
  plexFile(file: LibraryFile): string;
}

/**
 * Plex publishing: the first `inPlex` files are tracks of Plex's music section 3 (under Plex's own
 * path, mapped to the music folder), the Plex account is connected, the Den server and section 3
 * are chosen and `playback.plex` is on.
 */
export async function startPlexPlayback(options: { prefix: string; count: number; perAlbum: number; inPlex: number }): Promise<PlexWorld> {
  const f = await startPlexFakes();
  const world = await startPlaybackWorld({ prefix: options.prefix, destination: 'plex', count: options.count, perAlbum: options.perAlbum, env: { ...plexEnv(f), TONEARM_LIBRARY_WATCH: '0' } });
  const rkOf = (n: number) => String(1000 + n);
  const plexFile = (file: LibraryFile) => `/plexmedia/music/${file.rel}`;
  f.pms.sections = [{ key: '3', title: 'Music', type: 'artist', locations: ['/plexmedia/music'] }];
  f.pms.tracks = world.files.slice(0, options.inPlex).map((file, i) => ({
    ratingKey: rkOf(i + 1),
    sectionKey: '3',
    title: file.title,
    artist: file.artist,
    album: file.album,
    file: plexFile(file),
  }));
  await connectPlex(world.server, f);
  expect((await world.admin('/api/settings/plex/resources', { method: 'POST', json: {} })).status).toBe(200);
  const saved = await world.admin('/api/settings', {
    method: 'POST',
    json: {
      integrations: { plex: { url: f.pms.url, machineIdentifier: f.pms.machineIdentifier, serverName: 'Den', librarySectionId: '3', pathMappings: [{ from: '/plexmedia/music', to: world.music }] } },
      playback: { plex: { enabled: true } },
    },
  });
  expect(saved.status).toBe(200);
  const close = world.close;
  return {
    ...world,
    f,
    rkOf,
    plexFile,
    async close() {
      await close();
      await f.close();
    },
  };
}
