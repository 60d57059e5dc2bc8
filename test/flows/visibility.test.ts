import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadsRoot, finalPath } from '../../server/domain/downloads/layout.js';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { startLastFmFake, type LastFmFake } from '../fakes/lastfm/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeLibrary, RestClient, waitForScans } from '../rest/harness.js';
import { addLibrary, flowWorld, json, runFlow, runTracks, waitFor } from './helpers.js';

/**
 * showInLibrary (reference: flow-library-visibility): the files a flow with showInLibrary off
 * downloads and files are its playlist, not library content. They stay out of the canonical JSON
 * lists and totals, search, and /rest browsing (getAlbumList2, search3, getRandomSongs, getArtists),
 * while the flow's playlist (JSON and /rest getPlaylist) holds them and they stream. A track also
 * requested normally joins the library; switching showInLibrary on shows them all, off again hides
 * what nothing else wants; a static playlist taking a track shows it too. The files go through a
 * real scan of the downloads root.
 */

let server: TestServer;
let lastfm: LastFmFake;
let rest: RestClient;
let dir: string;
const token = () => server.admin.token;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-flowvis-'));
  const fx = makeLibrary(dir, { bulk: false });
  lastfm = await startLastFmFake(flowWorld());
  server = await startTestServer({
    musicDirs: [fx.music],
    env: { TONEARM_LASTFM_URL: lastfm.url, TONEARM_UPSTREAM_SPACING_MS: '0', ALLOW_PRIVATE_TARGETS: '127.0.0.1', TONEARM_LIBRARY_WATCH: '0' },
  });
  const res = await server.api('/api/settings', {
    method: 'POST',
    token: token(),
    json: { integrations: { lastfm: { apiKey: lastfm.apiKey } }, downloads: { worker: { running: false } } },
  });
  expect(res.status).toBe(200);
  await waitForScans(server);
  addLibrary(server, ['Lib A', 'Lib B'], []);
  await server.ctx.discovery.refreshUser(1);
  rest = new RestClient(server, { username: 'admin', password: 'correct horse battery' });
}, 60_000);

afterAll(async () => {
  await Promise.all([server?.stop(), lastfm?.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

const canonical = async (kind: string, extra = '') =>
  json<{ total: number; items: unknown[] }>(await server.api(`/api/library/canonical?kind=${kind}&page=1&pageSize=100${extra}`, { token: token() }));

/** Everything the library shows, as text: canonical lists of each kind, and /rest browsing. */
async function libraryText(): Promise<{ json: string; rest: string; totals: { artists: number; albums: number; tracks: number } }> {
  const [artists, albums, tracks] = await Promise.all([canonical('artists'), canonical('albums'), canonical('tracks')]);
  const restParts = await Promise.all([
    rest.ok('getAlbumList2', { type: 'alphabeticalByName', size: 500 }),
    rest.ok('getAlbumList2', { type: 'newest', size: 500 }),
    rest.ok('search3', { query: '""', artistCount: 500, albumCount: 500, songCount: 500 }),
    rest.ok('getRandomSongs', { size: 500 }),
    rest.ok('getArtists'),
  ]);
  return {
    json: JSON.stringify([artists.items, albums.items, tracks.items]),
    rest: JSON.stringify(restParts),
    totals: { artists: artists.total, albums: albums.total, tracks: tracks.total },
  };
}

describe('showInLibrary', () => {
  it('keeps a flow’s filed tracks out of the library until the flow or something else wants them', async () => {
    const before = await libraryText();
    expect(before.totals.tracks).toBe(3);

    const { flow } = await json(
      await server.api('/api/playlists/flows', {
        method: 'POST',
        token: token(),
        json: { name: 'Hidden Flow', size: 3, mix: { discover: 100 }, showInLibrary: false, scheduleDays: [5], scheduleTime: '00:00' },
      }),
    );
    const run = await runFlow(server, token(), flow.id);
    const planned = runTracks(server, run.id);
    expect(planned).toHaveLength(3);

    // The pipeline's last step, as it files a track: a tagged file at the layout's path, the job done, a scoped scan.
    const root = downloadsRoot(server.ctx);
    const template = makeMp3Template(dir, 1);
    const svc = server.ctx.downloads;
    const files = planned.map((t, i) => {
      const file = finalPath(root, { artistName: t.artistName, albumName: `Flow Album ${t.artistName}`, trackName: t.trackName, trackNumber: i + 1 }, 'mp3');
      writeTaggedMp3(file, template, { title: t.trackName, artist: t.artistName, albumArtist: t.artistName, album: `Flow Album ${t.artistName}`, track: i + 1, genre: 'Flowgaze' });
      svc.transition(t.jobId!, { status: 'done', finalPath: file, progress: 100 });
      return file;
    });
    server.ctx.library.scans.requestScan('quick', 'download filed', files);
    await waitForScans(server);
    const ref = () => server.ctx.playlists.find(flow.id)!;
    await waitFor(() => server.ctx.playlists.trackIds(ref()).length === 3, 'the flow tracks in the library', 30_000);
    const titles = planned.map((t) => t.trackName);

    // Hidden: not in lists, totals, search, genres, /rest browsing.
    const hidden = await libraryText();
    for (const title of titles) {
      expect(hidden.json).not.toContain(title);
      expect(hidden.rest).not.toContain(title);
    }
    expect(hidden.json).not.toContain('Flow Album');
    expect(hidden.rest).not.toContain('Flow Album');
    expect(hidden.totals).toEqual(before.totals);
    expect((await canonical('tracks', '&query=Song')).total).toBe(0);
    expect((await canonical('albums', '&query=Flow%20Album')).total).toBe(0);
    expect((await canonical('genres')).items).not.toContainEqual(expect.objectContaining({ name: 'Flowgaze' }));
    const found = await rest.ok('search3', { query: 'Song', artistCount: 20, albumCount: 20, songCount: 20 });
    expect(found.searchResult3.song ?? []).toHaveLength(0);
    const suggested = async (q: string) => (await json(await server.api(`/api/search/unified?q=${encodeURIComponent(q)}`, { token: token() }))).library;
    expect((await suggested('Song')).tracks).toEqual([]);
    expect((await suggested('Flow Album')).albums).toEqual([]);
    expect((await rest.ok('getGenres')).genres.genre ?? []).not.toContainEqual(expect.objectContaining({ value: 'Flowgaze' }));

    // ...but the flow's playlist holds them, in JSON and /rest, and they stream.
    const shown = await json(await server.api(`/api/playlists/flows/${flow.id}`, { token: token() }));
    expect(shown.flow).toMatchObject({ showInLibrary: false, trackCount: 3 });
    const lists = await rest.ok('getPlaylists');
    const pl = (lists.playlists.playlist as { id: string; name: string; songCount: number }[]).find((p) => p.name === 'Hidden Flow')!;
    expect(pl.songCount).toBe(3);
    const entries = (await rest.ok('getPlaylist', { id: pl.id })).playlist.entry as { id: string; title: string }[];
    expect(entries.map((e) => e.title)).toEqual(titles);
    const stream = await fetch(rest.url('stream', { id: entries[0]!.id }));
    expect(stream.status).toBe(200);
    expect((await stream.arrayBuffer()).byteLength).toBe(fs.statSync(files[0]!).size);
    expect((await rest.ok('getSong', { id: entries[1]!.id })).song.title).toBe(titles[1]);

    // The first track is also requested normally (a library download reaching the same file): it joins the library.
    const wanted = svc.create({ userId: 1, playlistType: 'library', artistName: planned[0]!.artistName, trackName: planned[0]!.trackName, albumName: `Flow Album ${planned[0]!.artistName}` });
    svc.transition(wanted.id, { status: 'done', finalPath: files[0]!, progress: 100 });
    await waitFor(async () => (await canonical('tracks')).total === 4, 'the requested track in the library');
    await waitForScans(server);
    const one = await libraryText();
    expect(one.json).toContain(titles[0]);
    expect(one.rest).toContain(titles[0]);
    expect(one.json).not.toContain(titles[1]);
    expect(one.rest).not.toContain(titles[2]);
    expect(one.totals).toEqual({ artists: before.totals.artists + 1, albums: before.totals.albums + 1, tracks: 4 });

    // showInLibrary on: every track of the flow is library content.
    const put = (showInLibrary: boolean) => server.api(`/api/playlists/flows/${flow.id}`, { method: 'PUT', token: token(), json: { showInLibrary } });
    expect((await put(true)).status).toBe(200);
    await waitFor(async () => (await canonical('tracks')).total === 6, 'the flow tracks in the library');
    await waitForScans(server);
    const all = await libraryText();
    for (const title of titles) {
      expect(all.json).toContain(title);
      expect(all.rest).toContain(title);
    }
    expect(all.totals).toEqual({ artists: before.totals.artists + 3, albums: before.totals.albums + 3, tracks: 6 });
    expect((await canonical('tracks', '&query=Song')).total).toBe(3);
    expect((await rest.ok('search3', { query: 'Song', songCount: 20 })).searchResult3.song).toHaveLength(3);
    expect((await suggested('Song')).tracks.map((t: { title: string }) => t.title).sort()).toEqual([...titles].sort());
    expect((await rest.ok('getGenres')).genres.genre).toContainEqual(expect.objectContaining({ value: 'Flowgaze', songCount: 3 }));

    // Off again: what nothing else wants goes back out; the requested track stays.
    expect((await put(false)).status).toBe(200);
    await waitFor(async () => (await canonical('tracks')).total === 4, 'the flow tracks out of the library again');
    await waitForScans(server);
    const again = await libraryText();
    expect(again.json).toContain(titles[0]);
    expect(again.json).not.toContain(titles[1]);
    expect(again.rest).not.toContain(titles[2]);
    expect((await rest.ok('getPlaylist', { id: pl.id })).playlist.entry).toHaveLength(3);

    // A static playlist taking a hidden track (from a Subsonic client) brings it into the library.
    await rest.ok('createPlaylist', { name: 'Keepers', songId: entries[1]!.id });
    await waitFor(async () => (await canonical('tracks')).total === 5, 'the kept track in the library');
    await waitForScans(server);
    const kept = await libraryText();
    expect(kept.json).toContain(titles[1]);
    expect(kept.rest).toContain(titles[1]);
    expect(kept.rest).not.toContain(titles[2]);

    // Removed from that playlist, it goes back out at once; the normally requested track stays.
    const keepers = (await rest.ok('getPlaylists')).playlists.playlist.find((p: { name: string }) => p.name === 'Keepers') as { id: string };
    await rest.ok('updatePlaylist', { playlistId: keepers.id, songIndexToRemove: 0 });
    await waitFor(async () => (await canonical('tracks')).total === 4, 'the released track out of the library');
    await waitForScans(server);
    const released = await libraryText();
    expect(released.json).not.toContain(titles[1]);
    expect(released.rest).not.toContain(titles[1]);
    expect(released.json).toContain(titles[0]);

    // Taken by a playlist again, then the playlist deleted: out again.
    await rest.ok('updatePlaylist', { playlistId: keepers.id, songIdToAdd: entries[1]!.id });
    await waitFor(async () => (await canonical('tracks')).total === 5, 'the kept track back in the library');
    await rest.ok('deletePlaylist', { id: keepers.id });
    await waitFor(async () => (await canonical('tracks')).total === 4, 'the track of the deleted playlist out of the library');
    await waitForScans(server);
    expect((await libraryText()).rest).not.toContain(titles[1]);
  }, 120_000);
});
