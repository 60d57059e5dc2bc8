import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SubsonicAPI } from 'subsonic-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeLibrary, waitForScans, type Fixture } from './harness.js';

let fx: Fixture;
let server: TestServer;
let rangeHeader: string | undefined;

/** The real client library from npm, as a phone app would use the server. */
function client(post = false) {
  return new SubsonicAPI({
    url: server.url,
    auth: { username: 'admin', password: 'correct horse battery' },
    post,
    fetch: (input, init) => {
      const headers = new Headers(init?.headers);
      if (rangeHeader) headers.set('range', rangeHeader);
      return fetch(input, { ...init, headers });
    },
  });
}

beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-rest-client-'));
  fx = makeLibrary(dir);
  server = await startTestServer({ musicDirs: [fx.music], env: { TONEARM_LIBRARY_WATCH: '0' } });
  await waitForScans(server);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(fx.dir, { recursive: true, force: true });
});

describe('a scripted session through subsonic-api', () => {
  for (const post of [false, true]) {
    it(`ping, browse, sync with search3 "", stream a range, star, playlist and play queue (${post ? 'form POST' : 'GET'})`, async () => {
      const api = client(post);
      expect((await api.ping()).status).toBe('ok');
      const ext = await api.getOpenSubsonicExtensions();
      expect(ext.openSubsonicExtensions.map((e) => e.name)).toContain('formPost');

      const artists = await api.getArtists();
      const bjork = artists.artists.index!.flatMap((i) => i.artist ?? []).find((a) => a.name === 'Björk')!;
      const artist = await api.getArtist({ id: bjork.id });
      const album = await api.getAlbum({ id: artist.artist.album![0]!.id });
      expect(album.album.song!.map((s) => s.title)).toEqual(['Army of Me', 'Hyperballad']);

      // Sync the whole library the way Symfonium does: "" paged 500 at a time.
      const songs = new Set<string>();
      for (let offset = 0; ; offset += 500) {
        const page = await api.search3({ query: '""', songCount: 500, songOffset: offset, artistCount: 0, albumCount: 0 });
        for (const s of page.searchResult3.song ?? []) songs.add(s.id);
        if ((page.searchResult3.song ?? []).length < 500) break;
      }
      expect(songs.size).toBe(fx.songCount);

      const song = album.album.song![0]!;
      rangeHeader = 'bytes=0-99';
      try {
        const res = await api.stream({ id: song.id });
        expect(res.status).toBe(206);
        expect((await res.arrayBuffer()).byteLength).toBe(100);
      } finally {
        rangeHeader = undefined;
      }

      await api.star({ id: song.id, albumId: album.album.id });
      const starred = await api.getStarred2();
      expect(starred.starred2.song!.map((s) => s.id)).toEqual([song.id]);
      expect(starred.starred2.album!.map((a) => a.id)).toEqual([album.album.id]);
      await api.unstar({ id: song.id, albumId: album.album.id });
      expect((await api.getStarred2()).starred2.song ?? []).toEqual([]);

      const created = await api.createPlaylist({ name: `Session ${post}`, songId: album.album.song!.map((s) => s.id) } as never);
      const id = (created as unknown as { playlist: { id: string } }).playlist.id;
      await api.updatePlaylist({ playlistId: id, songIndexToRemove: 0 } as never);
      const pl = await api.getPlaylist({ id });
      expect(pl.playlist.entry!.map((s) => s.title)).toEqual(['Hyperballad']);
      expect((await api.getPlaylists()).playlists.playlist!.map((p) => p.id)).toContain(id);
      await api.deletePlaylist({ id });

      const ids = album.album.song!.map((s) => s.id);
      await api.savePlayQueue({ id: ids, current: ids[1], position: 1500 } as never);
      const queue = await api.getPlayQueue();
      expect(queue.playQueue!.entry!.map((s) => s.id)).toEqual(ids);
      expect(queue.playQueue!.current).toBe(ids[1]);
      expect(queue.playQueue!.position).toBe(1500);
      expect(queue.playQueue!.changedBy).toBe('subsonic-api');
    });
  }
});
