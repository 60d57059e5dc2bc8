import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { BULK_ARTISTS, makeLibrary, RestClient, waitForScans, type Fixture } from './harness.js';

const goldenDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'golden');

let fx: Fixture;
let server: TestServer;
let admin: RestClient;
let listener: RestClient;
let listenerToken: string;

const LISTENER = { username: 'listener', password: 'listener-password' };

/** Replaces what changes between runs (dates, sizes of encoder output, version) before comparing. */
function normalize(xml: string): string {
  return xml
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<date>')
    .replace(/serverVersion="[^"]*"/, 'serverVersion="<version>"')
    .replace(/lastModified="\d+"/g, 'lastModified="<ms>"')
    .replace(/ size="\d+"/g, ' size="<bytes>"')
    .replace(/ bitRate="\d+"/g, ' bitRate="<kbps>"')
    .replace(/></g, '>\n<');
}

/** XML golden files pin the wire format; UPDATE_GOLDEN=1 rewrites them. */
async function golden(name: string, method: string, params: Record<string, string | number> = {}) {
  const xml = normalize(await admin.xml(method, params));
  const file = path.join(goldenDir, `${name}.xml`);
  if (process.env.UPDATE_GOLDEN === '1' || !fs.existsSync(file)) fs.writeFileSync(file, xml + '\n');
  expect(xml + '\n').toBe(fs.readFileSync(file, 'utf8'));
}

let post: { id: string; armyOfMe: string; hyperballad: string; bjork: string };
let abbey: { id: string; comeTogether: string; beatles: string };

beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-rest-lib-'));
  fx = makeLibrary(dir);
  server = await startTestServer({ musicDirs: [fx.music], env: { TONEARM_LIBRARY_WATCH: '0' } });
  await waitForScans(server);
  admin = new RestClient(server, { username: 'admin', password: 'correct horse battery' });
  await server.api('/api/users', { method: 'POST', token: server.admin.token, json: LISTENER });
  listener = new RestClient(server, LISTENER);
  listenerToken = ((await (await server.api('/api/auth/login', { method: 'POST', json: LISTENER })).json()) as { token: string }).token;
  const found = await admin.ok('search3', { query: 'Army of Me', artistCount: 0, albumCount: 0 });
  const army = found.searchResult3.song[0];
  const album = await admin.ok('getAlbum', { id: army.albumId });
  post = { id: army.albumId, armyOfMe: army.id, hyperballad: album.album.song[1].id, bjork: army.artistId };
  const come = (await admin.ok('search3', { query: 'Come Together', artistCount: 0, albumCount: 0 })).searchResult3.song[0];
  abbey = { id: come.albumId, comeTogether: come.id, beatles: come.artistId };
}, 120_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(fx.dir, { recursive: true, force: true });
});

describe('browsing', () => {
  it('getMusicFolders: one folder holding the library', async () => {
    expect((await admin.ok('getMusicFolders')).musicFolders).toEqual({ musicFolder: [{ id: 1, name: 'Music' }] });
  });

  it('getArtists groups album artists by letter, ignoring articles', async () => {
    const r = await admin.ok('getArtists');
    expect(r.artists.ignoredArticles).toBe('The El La Los Las Le Les');
    const groups = r.artists.index as { name: string; artist: { name: string; albumCount: number }[] }[];
    expect(groups.map((g) => g.name)).toEqual(['B']);
    const names = groups[0]!.artist.map((a) => a.name);
    expect(names.slice(0, 2)).toEqual(['The Beatles', 'Björk']);
    expect(names).toHaveLength(fx.artistCount);
    expect(groups[0]!.artist.find((a) => a.name === 'Bulk Artist 03')!.albumCount).toBe(6);
    await golden('getArtists', 'getArtists');
  });

  it('getIndexes carries lastModified and honours ifModifiedSince', async () => {
    const r = await admin.ok('getIndexes');
    expect(r.indexes.index[0].artist).toHaveLength(fx.artistCount);
    const since = await admin.ok('getIndexes', { ifModifiedSince: r.indexes.lastModified });
    expect(since.indexes.index).toBeUndefined();
    expect(since.indexes.lastModified).toBe(r.indexes.lastModified);
    await golden('getIndexes', 'getIndexes');
  });

  it('getArtist lists the albums; getAlbum the songs in disc and track order', async () => {
    const artist = await admin.ok('getArtist', { id: post.bjork });
    expect(artist.artist).toMatchObject({ id: post.bjork, name: 'Björk', albumCount: 1, musicBrainzId: 'art-bjork' });
    expect(artist.artist.album.map((a: { name: string }) => a.name)).toEqual(['Post']);
    const album = await admin.ok('getAlbum', { id: post.id });
    expect(album.album).toMatchObject({ name: 'Post', artist: 'Björk', artistId: post.bjork, songCount: 2, year: 1995, genre: 'Electronic', coverArt: post.id });
    expect(album.album.song.map((s: { title: string; track: number }) => [s.track, s.title])).toEqual([[1, 'Army of Me'], [2, 'Hyperballad']]);
    await golden('getAlbum', 'getAlbum', { id: post.id });
    await golden('getArtist', 'getArtist', { id: post.bjork });
  });

  it('getSong gives a full Child without the real path', async () => {
    const r = await admin.ok('getSong', { id: post.armyOfMe });
    expect(r.song).toMatchObject({
      id: post.armyOfMe, parent: post.id, isDir: false, title: 'Army of Me', album: 'Post', artist: 'Björk', track: 1, discNumber: 1,
      year: 1995, genre: 'Electronic', suffix: 'flac', contentType: 'audio/flac', duration: 4, type: 'music', mediaType: 'song',
      path: 'Björk/Post/01 - Army of Me.flac', albumId: post.id, artistId: post.bjork, musicBrainzId: 'rec-army',
    });
    expect(JSON.stringify(r)).not.toContain(fx.music);
    await golden('getSong', 'getSong', { id: post.armyOfMe });
  });

  it('getMusicDirectory browses artist to albums to songs', async () => {
    const a = await admin.ok('getMusicDirectory', { id: post.bjork });
    expect(a.directory).toMatchObject({ id: post.bjork, name: 'Björk' });
    expect(a.directory.child).toEqual([expect.objectContaining({ id: post.id, isDir: true, title: 'Post', parent: post.bjork })]);
    const b = await admin.ok('getMusicDirectory', { id: post.id });
    expect(b.directory.child.map((c: { id: string }) => c.id)).toEqual([post.armyOfMe, post.hyperballad]);
    await golden('getMusicDirectory', 'getMusicDirectory', { id: post.id });
  });

  it('getGenres counts songs and albums and always carries the name as value', async () => {
    const r = await admin.ok('getGenres');
    const byName = Object.fromEntries(r.genres.genre.map((g: { value: string }) => [g.value, g]));
    expect(byName.Electronic).toEqual({ value: 'Electronic', songCount: 2, albumCount: 1 });
    expect(byName.Rock).toEqual({ value: 'Rock', songCount: 1, albumCount: 1 });
    expect(byName.Pop.songCount).toBe(BULK_ARTISTS * 3 * 15);
    await golden('getGenres', 'getGenres');
  });

  it('info, similar and top songs answer from the library alone', async () => {
    expect((await admin.ok('getArtistInfo2', { id: post.bjork })).artistInfo2).toEqual({ musicBrainzId: 'art-bjork', similarArtist: [] });
    expect((await admin.ok('getArtistInfo', { id: post.bjork })).artistInfo).toEqual({ musicBrainzId: 'art-bjork', similarArtist: [] });
    expect((await admin.ok('getAlbumInfo2', { id: post.id })).albumInfo).toEqual({ musicBrainzId: 'rg-post' });
    expect((await admin.ok('getAlbumInfo', { id: post.id })).albumInfo).toEqual({ musicBrainzId: 'rg-post' });
    const similar = await admin.ok('getSimilarSongs2', { id: post.armyOfMe });
    expect(similar.similarSongs2.song.map((s: { id: string }) => s.id)).toEqual([post.hyperballad]);
    const similar1 = await admin.ok('getSimilarSongs', { id: post.bjork, count: 5 });
    expect(similar1.similarSongs.song).toHaveLength(2);
    const top = await admin.ok('getTopSongs', { artist: 'Björk', count: 5 });
    expect(top.topSongs.song).toHaveLength(2);
    expect((await admin.ok('getTopSongs', { id: post.bjork })).topSongs.song).toHaveLength(2);
    expect((await admin.ok('getTopSongs', { artist: 'Nobody At All' })).topSongs).toEqual({ song: [] });
  });
});

describe('lists', () => {
  const list = async (params: Record<string, string | number>) =>
    ((await admin.ok('getAlbumList2', params)).albumList2.album as { name: string; year?: number; id: string }[]);

  it('getAlbumList2 by name, artist, year, genre, newest and random', async () => {
    expect((await list({ type: 'alphabeticalByName', size: 3 })).map((a) => a.name)).toEqual(['Abbey Road', 'Bulk Album 1-1', 'Bulk Album 1-2']);
    expect((await list({ type: 'alphabeticalByName', size: 2, offset: 1 })).map((a) => a.name)).toEqual(['Bulk Album 1-1', 'Bulk Album 1-2']);
    // By the artist's sort key, without the leading article: (the) beatles, bjork, bulk artist 01, ...
    expect((await list({ type: 'alphabeticalByArtist', size: 3 })).map((a) => a.name)).toEqual(['Abbey Road', 'Post', 'Bulk Album 1-1']);
    // Numbers in natural order: 1-1, 2-1, ... (not 1-1, 10-1, 11-1).
    expect((await list({ type: 'byYear', fromYear: 1960, toYear: 1996, size: 5 })).map((a) => [a.name, a.year])).toEqual([
      ['Abbey Road', 1969], ['Bulk Album 1-1', 1981], ['Bulk Album 2-1', 1981], ['Bulk Album 3-1', 1981], ['Bulk Album 4-1', 1981],
    ]);
    expect((await list({ type: 'byYear', fromYear: 2000, toYear: 1960, size: 2 })).map((a) => a.year)).toEqual([1995, 1986]);
    expect((await list({ type: 'byGenre', genre: 'Electronic' })).map((a) => a.name)).toEqual(['Post']);
    expect(await list({ type: 'newest', size: 500 })).toHaveLength(fx.albumCount);
    const random = await list({ type: 'random', size: 20 });
    expect(random).toHaveLength(20);
    expect(new Set(random.map((a) => a.id)).size).toBe(20);
    expect(await list({ type: 'newest', musicFolderId: 2 })).toEqual([]);
    await golden('getAlbumList2', 'getAlbumList2', { type: 'alphabeticalByName', size: 2 });
  });

  it('getAlbumList (folder style) and parameter errors', async () => {
    const r = await admin.ok('getAlbumList', { type: 'alphabeticalByName', size: 1 });
    expect(r.albumList.album).toEqual([expect.objectContaining({ title: 'Abbey Road', isDir: true, id: abbey.id })]);
    expect((await admin.json('getAlbumList2', { type: 'byYear' })).error.code).toBe(10);
    expect((await admin.json('getAlbumList2', { type: 'byGenre' })).error.code).toBe(10);
    expect((await admin.json('getAlbumList2', { type: 'sideways' })).error.code).toBe(0);
    expect((await admin.json('getAlbumList2', {})).error.code).toBe(10);
  });

  it('getRandomSongs with genre and year filters; getSongsByGenre pages', async () => {
    const rock = await admin.ok('getRandomSongs', { genre: 'Rock', size: 5 });
    expect(rock.randomSongs.song.map((s: { id: string }) => s.id)).toEqual([abbey.comeTogether]);
    const years = await admin.ok('getRandomSongs', { fromYear: 1990, toYear: 1999, size: 10 });
    expect(years.randomSongs.song.map((s: { title: string }) => s.title).sort()).toEqual(['Army of Me', 'Hyperballad']);
    expect((await admin.ok('getRandomSongs', { size: 50 })).randomSongs.song).toHaveLength(50);
    const page1 = await admin.ok('getSongsByGenre', { genre: 'Jazz', count: 10 });
    const page2 = await admin.ok('getSongsByGenre', { genre: 'Jazz', count: 10, offset: 10 });
    expect(page1.songsByGenre.song).toHaveLength(10);
    expect(page1.songsByGenre.song[9].id).not.toBe(page2.songsByGenre.song[0].id);
    expect((await admin.ok('getSongsByGenre', { genre: 'Polka' })).songsByGenre).toEqual({ song: [] });
  });
});

describe('search', () => {
  it('search3 finds by words, accents folded, and by short prefixes', async () => {
    const r = await admin.ok('search3', { query: 'hyperbal' });
    expect(r.searchResult3.song.map((s: { id: string }) => s.id)).toEqual([post.hyperballad]);
    const bjork = await admin.ok('search3', { query: 'bjork', songCount: 0 });
    expect(bjork.searchResult3.artist.map((a: { id: string }) => a.id)).toEqual([post.bjork]);
    expect(bjork.searchResult3.album.map((a: { id: string }) => a.id)).toEqual([post.id]);
    const short = await admin.ok('search3', { query: 'Po', artistCount: 0, songCount: 0 });
    expect(short.searchResult3.album.map((a: { name: string }) => a.name)).toEqual(['Post']);
    await golden('search3', 'search3', { query: 'hyperballad' });
  });

  it('search3 with "" or an empty query pages through everything, one kind at a time', async () => {
    const seen = new Set<string>();
    for (let offset = 0; ; offset += 500) {
      const r = await admin.ok('search3', { query: '""', songCount: 500, songOffset: offset, artistCount: 0, albumCount: 0 });
      expect(r.searchResult3.artist).toEqual([]);
      for (const s of r.searchResult3.song) seen.add(s.id);
      if (r.searchResult3.song.length < 500) break;
    }
    expect(seen.size).toBe(fx.songCount);
    const albums = await admin.ok('search3', { query: '', albumCount: 500, songCount: 0, artistCount: 500 });
    expect(albums.searchResult3.album).toHaveLength(fx.albumCount);
    expect(albums.searchResult3.artist).toHaveLength(fx.artistCount);
  });

  it('search2 answers in folder style', async () => {
    const r = await admin.ok('search2', { query: 'bjork' });
    expect(r.searchResult2.artist).toEqual([{ id: post.bjork, name: 'Björk' }]);
    expect(r.searchResult2.album[0]).toMatchObject({ id: post.id, isDir: true });
  });
});

describe('annotation', () => {
  it('stars are the library favorites; unknown ids change nothing', async () => {
    await listener.ok('star', { id: [post.armyOfMe], albumId: [post.id], artistId: [post.bjork] });
    const fav = (await (await server.api('/api/library/favorites', { token: listenerToken })).json()) as Record<string, { name?: string; title?: string; trackName?: string; albumName?: string; artistName?: string }[]>;
    expect(fav.artists).toHaveLength(1);
    expect(fav.albums).toHaveLength(1);
    expect(fav.tracks).toHaveLength(1);
    const s2 = await listener.ok('getStarred2');
    expect(s2.starred2.song.map((s: { id: string; starred: string }) => s.id)).toEqual([post.armyOfMe]);
    expect(s2.starred2.album[0].id).toBe(post.id);
    expect(s2.starred2.artist[0].id).toBe(post.bjork);
    expect(typeof s2.starred2.song[0].starred).toBe('string');
    const s1 = await listener.ok('getStarred');
    expect(s1.starred.artist).toEqual([expect.objectContaining({ id: post.bjork, name: 'Björk' })]);
    expect((await listener.ok('getAlbumList2', { type: 'starred' })).albumList2.album.map((a: { id: string }) => a.id)).toEqual([post.id]);
    expect((await admin.ok('getStarred2')).starred2).toEqual({ artist: [], album: [], song: [] });

    const bad = await listener.json('unstar', { id: [post.armyOfMe, 'tr-00000000000000'] });
    expect(bad.error.code).toBe(70);
    expect((await listener.ok('getStarred2')).starred2.song).toHaveLength(1);
    await listener.ok('unstar', { id: [post.armyOfMe, post.id, post.bjork] });
    expect((await listener.ok('getStarred2')).starred2).toEqual({ artist: [], album: [], song: [] });
    const after = (await (await server.api('/api/library/favorites', { token: listenerToken })).json()) as Record<string, unknown[]>;
    expect([after.artists!.length, after.albums!.length, after.tracks!.length]).toEqual([0, 0, 0]);
  });

  it('getIndexes lastModified advances when stars change', async () => {
    const before = (await listener.ok('getIndexes')).indexes.lastModified;
    server.clock.advance(3_600_000);
    await listener.ok('star', { artistId: post.bjork });
    const after = await listener.ok('getIndexes', { ifModifiedSince: before });
    expect(after.indexes.lastModified).toBeGreaterThan(before);
    expect(after.indexes.index[0].artist.find((a: { id: string }) => a.id === post.bjork).starred).toBeDefined();
    await listener.ok('unstar', { artistId: post.bjork });
  });

  it('setRating feeds userRating and the highest list; 0 clears it', async () => {
    await listener.ok('setRating', { id: post.id, rating: 4 });
    await listener.ok('setRating', { id: post.armyOfMe, rating: 5 });
    expect((await listener.ok('getAlbum', { id: post.id })).album.userRating).toBe(4);
    expect((await listener.ok('getSong', { id: post.armyOfMe })).song.userRating).toBe(5);
    expect((await listener.ok('getAlbumList2', { type: 'highest' })).albumList2.album.map((a: { id: string }) => a.id)).toEqual([post.id]);
    expect((await listener.json('setRating', { id: post.id, rating: 6 })).error.code).toBe(0);
    await listener.ok('setRating', { id: post.id, rating: 0 });
    expect((await listener.ok('getAlbum', { id: post.id })).album.userRating).toBeUndefined();
  });

  it('scrobble: now playing first, then a play event with counts for frequent and recent', async () => {
    await listener.ok('scrobble', { id: post.hyperballad, submission: false });
    const now = await admin.ok('getNowPlaying');
    expect(now.nowPlaying.entry).toEqual([
      expect.objectContaining({ id: post.hyperballad, username: 'listener', minutesAgo: 0, playerId: 1, playerName: 'tonearm-tests' }),
    ]);
    await golden('getNowPlaying', 'getNowPlaying');
    const at = Date.UTC(2024, 0, 2, 3, 4, 5);
    await listener.ok('scrobble', { id: post.hyperballad, time: at });
    expect((await admin.ok('getNowPlaying')).nowPlaying.entry).toEqual([]);
    const events = (await (await server.api('/api/play-events', { token: listenerToken })).json()) as { items: { title: string; playedAt: string; source: string }[] };
    expect(events.items[0]).toMatchObject({ title: 'Hyperballad', playedAt: '2024-01-02T03:04:05.000Z', source: 'subsonic' });
    const song = (await listener.ok('getSong', { id: post.hyperballad })).song;
    expect(song.playCount).toBe(1);
    expect(song.played).toBe('2024-01-02T03:04:05.000Z');
    expect((await listener.ok('getAlbumList2', { type: 'frequent' })).albumList2.album.map((a: { id: string }) => a.id)).toEqual([post.id]);
    expect((await listener.ok('getAlbumList2', { type: 'recent' })).albumList2.album.map((a: { id: string }) => a.id)).toEqual([post.id]);
    expect((await listener.ok('getTopSongs', { artist: 'Björk', count: 1 })).topSongs.song[0].id).toBe(post.hyperballad);
  });
});

describe('playlists', () => {
  it('round trip: create, read, add, remove by index, rename, delete', async () => {
    const created = await listener.ok('createPlaylist', { name: 'Road trip', songId: [post.armyOfMe, abbey.comeTogether] });
    const id = created.playlist.id as string;
    expect(id).toMatch(/^pl-[0-9A-Za-z]+$/);
    expect(created.playlist).toMatchObject({ name: 'Road trip', owner: 'listener', public: false, songCount: 2, readonly: false });
    expect(created.playlist.entry.map((e: { id: string }) => e.id)).toEqual([post.armyOfMe, abbey.comeTogether]);
    await listener.ok('updatePlaylist', { playlistId: id, songIdToAdd: [post.hyperballad], songIndexToRemove: [0], name: 'Trip', comment: 'cc', public: true });
    const got = await listener.ok('getPlaylist', { id });
    expect(got.playlist).toMatchObject({ name: 'Trip', comment: 'cc', public: true, songCount: 2 });
    expect(got.playlist.entry.map((e: { id: string }) => e.id)).toEqual([abbey.comeTogether, post.hyperballad]);
    const lists = await listener.ok('getPlaylists');
    expect(lists.playlists.playlist.map((p: { id: string }) => p.id)).toEqual([id]);
    // Public: others read it, read-only.
    const seen = await admin.ok('getPlaylist', { id });
    expect(seen.playlist.readonly).toBe(true);
    expect((await admin.json('updatePlaylist', { playlistId: id, name: 'Mine now' })).error.code).toBe(50);
    expect((await admin.json('deletePlaylist', { id })).error.code).toBe(50);
    // Replace the contents with createPlaylist + playlistId.
    const replaced = await listener.ok('createPlaylist', { playlistId: id, songId: [post.hyperballad] });
    expect(replaced.playlist.entry.map((e: { id: string }) => e.id)).toEqual([post.hyperballad]);
    expect((await listener.json('createPlaylist', { name: 'x', songId: ['tr-00000000000000'] })).error.code).toBe(70);
    await golden('getPlaylist', 'getPlaylist', { id });
    await listener.ok('deletePlaylist', { id });
    expect((await listener.json('getPlaylist', { id })).error.code).toBe(70);
  });

  it('flows and shared playlists are readonly even to their owner, as changing them here answers error 50', async () => {
    const flow = await server.api('/api/playlists/flows', { method: 'POST', token: server.admin.token, json: { name: 'Rest flow', size: 10, mix: { discover: 100 }, scheduleDays: [5], scheduleTime: '00:00' } });
    expect(flow.status, await flow.clone().text()).toBe(200);
    const shared = await server.api('/api/playlists/shared-playlists', { method: 'POST', token: server.admin.token, json: { name: 'Rest shared' } });
    expect([200, 201]).toContain(shared.status);
    const { playlist: mine } = await admin.ok('createPlaylist', { name: 'Rest static' });
    const listed = (await admin.ok('getPlaylists')).playlists.playlist as { id: string; name: string; readonly: boolean }[];
    const byName = new Map(listed.map((p) => [p.name, p]));
    expect(byName.get('Rest static')?.readonly).toBe(false);
    for (const name of ['Rest flow', 'Rest shared']) {
      const p = byName.get(name)!;
      expect(p, name).toBeDefined();
      expect(p.readonly, name).toBe(true);
      expect((await admin.ok('getPlaylist', { id: p.id })).playlist.readonly, name).toBe(true);
      expect((await admin.json('updatePlaylist', { playlistId: p.id, name: 'renamed' })).error.code, name).toBe(50);
    }
    await admin.ok('deletePlaylist', { id: mine.id });
    // Leave the admin's list as the next test expects it.
    const flowId = ((await flow.json()) as { flow?: { id: string }; id?: string });
    const sharedBody = (await shared.json()) as { playlist?: { id: string }; id?: string };
    const fid = flowId.flow?.id ?? flowId.id;
    const sid = sharedBody.playlist?.id ?? sharedBody.id;
    expect((await server.api(`/api/playlists/flows/${fid}`, { method: 'DELETE', token: server.admin.token })).status).toBeLessThan(300);
    expect((await server.api(`/api/playlists/shared-playlists/${sid}`, { method: 'DELETE', token: server.admin.token })).status).toBeLessThan(300);
  });

  it('private playlists stay private', async () => {
    const { playlist } = await listener.ok('createPlaylist', { name: 'Secret' });
    expect((await admin.json('getPlaylist', { id: playlist.id })).error.code).toBe(70);
    expect((await admin.ok('getPlaylists')).playlists.playlist).toEqual([]);
    expect((await admin.ok('getPlaylists', { username: 'listener' })).playlists.playlist.map((p: { name: string }) => p.name)).toEqual(['Secret']);
    await listener.ok('deletePlaylist', { id: playlist.id });
  });
});

describe('bookmarks and play queue', () => {
  it('bookmarks: create, list, delete', async () => {
    await listener.ok('createBookmark', { id: post.armyOfMe, position: 1234, comment: 'here' });
    const r = await listener.ok('getBookmarks');
    expect(r.bookmarks.bookmark).toEqual([
      expect.objectContaining({ position: 1234, username: 'listener', comment: 'here', entry: expect.objectContaining({ id: post.armyOfMe }) }),
    ]);
    await listener.ok('deleteBookmark', { id: post.armyOfMe });
    expect((await listener.ok('getBookmarks')).bookmarks).toEqual({ bookmark: [] });
    expect((await listener.json('deleteBookmark', { id: post.armyOfMe })).error.code).toBe(70);
  });

  it('play queue round trip, by id and by index, shared with the library queue', async () => {
    expect((await listener.ok('getPlayQueue')).playQueue).toEqual({ username: 'listener', changed: '1970-01-01T00:00:00.000Z', changedBy: '' });
    await listener.ok('savePlayQueue', { id: [post.armyOfMe, post.hyperballad, abbey.comeTogether], current: post.hyperballad, position: 4200 });
    const q = await listener.ok('getPlayQueue');
    expect(q.playQueue).toMatchObject({ current: post.hyperballad, position: 4200, username: 'listener', changedBy: 'tonearm-tests' });
    expect(q.playQueue.entry.map((e: { id: string }) => e.id)).toEqual([post.armyOfMe, post.hyperballad, abbey.comeTogether]);
    const lib = (await (await server.api('/api/library/playback-queue', { token: listenerToken })).json()) as { total: number; currentIndex: number; positionMs: number };
    expect([lib.total, lib.currentIndex, lib.positionMs]).toEqual([3, 1, 4200]);
    await listener.ok('savePlayQueueByIndex', { id: [abbey.comeTogether, post.armyOfMe], currentIndex: 1, position: 10 });
    const byIndex = await listener.ok('getPlayQueueByIndex');
    expect(byIndex.playQueueByIndex).toMatchObject({ currentIndex: 1, position: 10 });
    expect((await listener.json('savePlayQueueByIndex', { id: [post.armyOfMe], currentIndex: 3 })).error.code).toBe(0);
    await golden('getPlayQueue', 'getPlayQueue');
    await listener.ok('savePlayQueue', {});
    expect((await listener.ok('getPlayQueue')).playQueue.entry).toBeUndefined();
  });
});

describe('media', () => {
  it('getLyricsBySongId reads the sidecar .lrc as synced lines; getLyrics by artist and title', async () => {
    const r = await admin.ok('getLyricsBySongId', { id: post.armyOfMe });
    expect(r.lyricsList.structuredLyrics).toEqual([
      {
        displayArtist: 'Björk', displayTitle: 'Army of Me', lang: 'und', offset: 100, synced: true,
        line: [{ start: 500, value: 'Army of me' }, { start: 2250, value: 'And if you complain once more' }],
      },
    ]);
    expect((await admin.ok('getLyricsBySongId', { id: post.hyperballad })).lyricsList).toEqual({ structuredLyrics: [] });
    const plain = await admin.ok('getLyrics', { artist: 'Björk', title: 'Army of Me' });
    expect(plain.lyrics).toEqual({ artist: 'Björk', title: 'Army of Me', value: 'Army of me\nAnd if you complain once more' });
    expect((await admin.ok('getLyrics', { artist: 'x', title: 'nothing' })).lyrics).toEqual({ value: '' });
    await golden('getLyricsBySongId', 'getLyricsBySongId', { id: post.armyOfMe });
  });

  it('getCoverArt serves the embedded picture, resized on request, for album, song and artist ids', async () => {
    const full = await fetch(admin.url('getCoverArt', { id: post.id }));
    expect(full.status).toBe(200);
    expect(full.headers.get('content-type')).toBe('image/png');
    const small = await fetch(admin.url('getCoverArt', { id: post.armyOfMe, size: 16 }));
    expect(small.headers.get('content-type')).toBe('image/jpeg');
    const bytes = Buffer.from(await small.arrayBuffer());
    expect([bytes[0], bytes[1]]).toEqual([0xff, 0xd8]);
    expect((await fetch(admin.url('getCoverArt', { id: post.bjork }))).status).toBe(200);
    const none = await fetch(admin.url('getCoverArt', { id: abbey.id, f: 'json' }));
    expect(none.status).toBe(404);
    expect(((await none.json()) as any)['subsonic-response'].error.code).toBe(70);
  });

  it('getAvatar draws a picture for a user', async () => {
    const r = await fetch(admin.url('getAvatar', { username: 'listener' }));
    expect(r.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await r.arrayBuffer()).subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('download sends the original file', async () => {
    const r = await fetch(admin.url('download', { id: post.armyOfMe }));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-disposition')).toContain('attachment');
    const bytes = Buffer.from(await r.arrayBuffer());
    expect(bytes.equals(fs.readFileSync(path.join(fx.music, 'Björk', 'Post', '01 Army of Me.flac')))).toBe(true);
  });
});

describe('scanning', () => {
  it('getScanStatus reports the count; startScan is for administrators and runs a scan', async () => {
    const r = await admin.ok('getScanStatus');
    expect(r.scanStatus).toEqual({ scanning: false, count: fx.songCount, lastScan: expect.any(String) });
    const runsBefore = server.ctx.db.prepare('SELECT COUNT(*) FROM library_scan_runs').pluck().get() as number;
    const started = await admin.ok('startScan');
    expect(started.scanStatus.scanning).toBe(true);
    expect(server.ctx.db.prepare('SELECT COUNT(*) FROM library_scan_runs').pluck().get()).toBe(runsBefore + 1);
    expect((await admin.ok('getScanStatus')).scanStatus.scanning).toBe(true);
  });

  it('error answers have a golden XML form too', async () => {
    await golden('error-70', 'getAlbum', { id: 'al-00000000000000' });
  });
});
