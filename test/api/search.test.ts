import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMusicBrainzFake, type FakeReleaseGroup, type MusicBrainzFake } from '../fakes/musicbrainz/index.js';
import { catalogue, ids } from '../fixtures/catalogue.js';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { waitFor } from '../downloads/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let mb: MusicBrainzFake;
let dir: string;

const get = async (pathname: string) => {
  const res = await server.api(pathname, { token: server.admin.token });
  return { status: res.status, body: (await res.json()) as any };
};
const searches = () => mb.requests.filter((r) => r.path === '/artist' || r.path === '/release-group').length;
const uuid = (n: number) => `00000000-0000-4000-9000-${String(n).padStart(12, '0')}`;

const group = (n: number, title: string, primaryType: string, firstReleaseDate: string, secondaryTypes: string[] = []): FakeReleaseGroup => ({
  id: uuid(n), title, primaryType, secondaryTypes, firstReleaseDate, releases: [],
});

beforeAll(async () => {
  mb = await startMusicBrainzFake(catalogue);
  // Thirty artists for paging, and one with every kind of release for the type filters.
  for (let i = 1; i <= 30; i++) mb.add({ id: uuid(1000 + i), name: `Pager ${String(i).padStart(2, '0')}`, releaseGroups: [] });
  mb.add({
    id: uuid(2000),
    name: 'Echo Chamber',
    tags: ['shoegaze'],
    releaseGroups: [
      group(2001, 'Echo', 'Album', '2010-05-01'),
      group(2002, 'Echo Live', 'Album', '2012-01-01', ['Live']),
      group(2003, 'Echo EP', 'EP', '2008-02-02'),
      group(2004, 'Echo Single', 'Single', '2011-07-07'),
      group(2005, 'Echo Hits', 'Album', '2020-09-09', ['Compilation']),
    ],
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-search-'));
  const music = path.join(dir, 'music');
  writeTaggedMp3(path.join(music, 'Aurora Lane', 'Dawn', '01.mp3'), makeMp3Template(dir), {
    title: 'First Light', artist: 'Aurora Lane', albumArtist: 'Aurora Lane', album: 'Dawn', track: 1, date: '2019',
    musicbrainzArtistId: ids.aurora, musicbrainzAlbumArtistId: ids.aurora, musicbrainzReleaseGroupId: ids.rgDawn, musicbrainzAlbumId: ids.relDawn,
  });
  server = await startTestServer({
    musicDirs: [music],
    env: { TONEARM_MUSICBRAINZ_URL: mb.url, TONEARM_UPSTREAM_SPACING_MS: '0', TONEARM_LIBRARY_WATCH: '0' },
  });
  const scan = await server.api('/api/library/refresh', { method: 'POST', token: server.admin.token, json: { mode: 'full' } });
  const { jobId } = (await scan.json()) as { jobId: string };
  for (let i = 0; i < 200; i++) {
    if ((await get(`/api/library/refresh/${jobId}`)).body.status === 'completed') break;
    await new Promise((r) => setTimeout(r, 50));
  }
}, 60_000);
afterAll(async () => {
  await server.stop();
  await mb.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('GET /api/search', () => {
  it('finds artists by name (the default scope) with the search artist entry, marked against the library', async () => {
    const { status, body } = await get('/api/search?q=aurora');
    expect(status).toBe(200);
    expect(body).toMatchObject({ scope: 'artist', query: 'aurora', count: 2, offset: 0 });
    expect(body.items).toEqual([
      { id: ids.auroraBorealis, name: 'Aurora Borealis Choir', type: 'Choir', image: null, tags: ['choral'], inLibrary: false, disambiguation: '', country: null, score: 90 },
      { id: ids.aurora, name: 'Aurora Lane', type: 'Group', image: null, tags: ['dream pop', 'shoegaze'], inLibrary: true, disambiguation: '', country: 'NO', score: 90 },
    ]);
    // The user's words go to MusicBrainz as one quoted phrase, with decisions §4's default limit.
    const sent = mb.requests.filter((r) => r.path === '/artist').at(-1)!;
    expect(sent.query.get('query')).toBe('"aurora"');
    expect(sent.query.get('limit')).toBe('50');
  });

  it('pages with limit and offset, counting every match', async () => {
    const first = await get('/api/search?q=pager&limit=10');
    const third = await get('/api/search?q=pager&limit=10&offset=20');
    expect(first.body).toMatchObject({ count: 30, offset: 0 });
    expect(third.body).toMatchObject({ count: 30, offset: 20 });
    expect(first.body.items.map((a: any) => a.name)).toEqual(Array.from({ length: 10 }, (_, i) => `Pager ${String(i + 1).padStart(2, '0')}`));
    expect(third.body.items.map((a: any) => a.name)).toEqual(Array.from({ length: 10 }, (_, i) => `Pager ${i + 21}`));
  });

  it('finds albums (release groups) with the search album entry and the library status', async () => {
    const { status, body } = await get('/api/search?q=dawn&scope=album');
    expect(status).toBe(200);
    expect(body).toMatchObject({ scope: 'album', query: 'dawn', count: 1, offset: 0 });
    expect(body.items).toEqual([
      { id: ids.rgDawn, title: 'Dawn', artistName: 'Aurora Lane', artistId: ids.aurora, type: 'Album', secondaryTypes: [], releaseDate: '2019-03-01', status: 'complete', inLibrary: true, score: 100 },
    ]);
    const dusk = await get('/api/search?q=dusk&scope=album');
    expect(dusk.body.items[0]).toMatchObject({ title: 'Dusk', status: 'not_in_library', inLibrary: false });
  });

  it('narrows albums by releaseTypes: primary types listed, secondary types only when listed', async () => {
    const titles = async (types: string) => (await get(`/api/search?q=echo&scope=album&releaseTypes=${types}&sort=title`)).body.items.map((g: any) => g.title);
    expect(await titles('album')).toEqual(['Echo']);
    expect(await titles('album,live')).toEqual(['Echo', 'Echo Live']);
    expect(await titles('ep,single')).toEqual(['Echo EP', 'Echo Single']);
    expect(await titles('Album,Compilation')).toEqual(['Echo', 'Echo Hits']);
    const all = await get('/api/search?q=echo&scope=album');
    expect(all.body.count).toBe(5);
    const bad = await get('/api/search?q=echo&scope=album&releaseTypes=album,bootleg');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
  });

  it('sorts albums by date (newest first) or title, and pages the sorted list', async () => {
    const byDate = await get('/api/search?q=echo&scope=album&sort=date');
    expect(byDate.body.items.map((g: any) => g.releaseDate)).toEqual(['2020-09-09', '2012-01-01', '2011-07-07', '2010-05-01', '2008-02-02']);
    const byTitle = await get('/api/search?q=echo&scope=album&sort=title&limit=2&offset=2');
    expect(byTitle.body).toMatchObject({ count: 5, offset: 2 });
    expect(byTitle.body.items.map((g: any) => g.title)).toEqual(['Echo Hits', 'Echo Live']);
  });

  it('finds artists carrying a tag', async () => {
    const { body } = await get('/api/search?q=Shoegaze&scope=tag');
    expect(body).toMatchObject({ scope: 'tag', query: 'Shoegaze', count: 2 });
    expect(body.items.map((a: any) => [a.name, a.inLibrary])).toEqual([['Aurora Lane', true], ['Echo Chamber', false]]);
    expect(mb.requests.filter((r) => r.path === '/artist').at(-1)!.query.get('query')).toBe('tag:"shoegaze"');
  });

  it('rejects a missing, blank or overlong query and limits or offsets out of range', async () => {
    for (const qs of ['', 'q=', 'q=%20%20%20', `q=${'x'.repeat(201)}`, 'q=a&limit=0', 'q=a&limit=101', 'q=a&offset=-1', 'q=a&offset=10001', 'q=a&scope=genre', 'q=a&scope=album&sort=popularity']) {
      const res = await get(`/api/search?${qs}`);
      expect(res.status, qs).toBe(400);
      expect(res.body).toMatchObject({ error: 'Invalid request', code: 'VALIDATION_ERROR' });
    }
    const trimmed = await get('/api/search?q=%20aurora%20&limit=1');
    expect(trimmed.body).toMatchObject({ query: 'aurora', count: 2 });
    expect(trimmed.body.items).toHaveLength(1);
  });

  it('serves a repeated search (any case or spacing) from the cache for an hour, then asks again', async () => {
    await get('/api/search?q=guest%20singer');
    const before = searches();
    expect((await get('/api/search?q=Guest%20%20SINGER')).body.items[0].name).toBe('Guest Singer');
    expect(searches()).toBe(before);
    server.clock.advance(2 * 3600_000);
    await get('/api/search?q=guest%20singer');
    expect(searches()).toBe(before + 1);
  });

  it('answers 502 UPSTREAM_UNAVAILABLE while MusicBrainz is down for a query never cached, and serves cached ones', async () => {
    await get('/api/search?q=dusk&scope=album');
    server.clock.advance(2 * 3600_000);
    mb.faults.down = true;
    try {
      const never = await get('/api/search?q=never%20searched');
      expect(never.status).toBe(502);
      expect(never.body.code).toBe('UPSTREAM_UNAVAILABLE');
      const stale = await get('/api/search?q=dusk&scope=album');
      expect(stale.status).toBe(200);
      expect(stale.body.items[0].title).toBe('Dusk');
    } finally {
      mb.faults.down = false;
    }
  });
});

describe('GET /api/search/unified', () => {
  it('answers library hits from the local index and MusicBrainz hits that arrive in time', async () => {
    const { status, body } = await get('/api/search/unified?q=aurora');
    expect(status).toBe(200);
    expect(body.query).toBe('aurora');
    expect(body.library.artists).toEqual([{ id: expect.stringMatching(/^\d+$/), name: 'Aurora Lane', mbid: ids.aurora, imageUrl: null }]);
    // The album index carries the album artist's name too.
    expect(body.library.albums).toEqual([{ id: expect.stringMatching(/^\d+$/), title: 'Dawn', artistName: 'Aurora Lane', mbid: ids.rgDawn, year: 2019, imageUrl: null }]);
    expect(body.remote.status).toBe('complete');
    expect(body.remote.artists.map((a: any) => [a.name, a.inLibrary])).toEqual([['Aurora Borealis Choir', false], ['Aurora Lane', true]]);
    const tracks = await get('/api/search/unified?q=first%20light');
    expect(tracks.body.library.tracks).toMatchObject([{ title: 'First Light', artistName: 'Aurora Lane', albumTitle: 'Dawn', available: true }]);
    expect(tracks.body.library.albums).toEqual([]);
  });

  it('answers the library part at once when MusicBrainz is slow (pending), and has the remote part cached next time', async () => {
    mb.faults.delayMs = 2500;
    const started = Date.now();
    let slow;
    try {
      slow = await get('/api/search/unified?q=dawn');
    } finally {
      mb.faults.delayMs = 0;
    }
    expect(Date.now() - started).toBeLessThan(2400);
    expect(slow.body.library.albums.map((a: any) => a.title)).toEqual(['Dawn']);
    expect(slow.body.remote).toEqual({ status: 'pending', artists: [], albums: [] });
    // The pending search has landed (its caller's entry goes once it settles, after the cache has it).
    await waitFor(() => server.ctx.searchCallers.size === 0 || null, 10_000, 'the pending MusicBrainz search to land');
    const before = searches();
    const later = await get('/api/search/unified?q=dawn');
    expect(later.body.remote.status).toBe('complete');
    expect(later.body.remote.albums.map((a: any) => [a.title, a.status])).toEqual([['Dawn', 'complete']]);
    expect(searches()).toBe(before);
  }, 15_000);

  it('says the remote part is unavailable when MusicBrainz is down, and validates q', { timeout: 20_000 }, async () => {
    mb.faults.down = true;
    try {
      // The first attempt is still retrying when the budget ends; once it has failed, the outage is known.
      const first = await get('/api/search/unified?q=glass%20sky%20never');
      expect(first.status).toBe(200);
      expect(first.body.library.tracks.map((t: any) => t.title)).toEqual([]);
      expect(['pending', 'unavailable']).toContain(first.body.remote.status);
      await waitFor(() => (server.ctx.search.failingSince(60_000) && server.ctx.searchCallers.size === 0) || null, 10_000, 'the first searches to fail');
      // A known outage: the answer does not wait out the MusicBrainz budget (1.5 s).
      const t0 = performance.now();
      const { status, body } = await get('/api/search/unified?q=glass%20sky%20again');
      expect(performance.now() - t0).toBeLessThan(1000);
      expect(status).toBe(200);
      expect(body.remote).toEqual({ status: 'unavailable', artists: [], albums: [] });
    } finally {
      mb.faults.down = false;
    }
    expect((await get('/api/search/unified?q=%20')).status).toBe(400);
  });

  it("says which tracks the library has no playable file of (one whose file went away)", async () => {
    const file = path.join(dir, 'music', 'Aurora Lane', 'Dawn', '02.mp3');
    writeTaggedMp3(file, makeMp3Template(dir), {
      title: 'Morning Tide', artist: 'Aurora Lane', albumArtist: 'Aurora Lane', album: 'Dawn', track: 2, date: '2019',
      musicbrainzArtistId: ids.aurora, musicbrainzAlbumArtistId: ids.aurora, musicbrainzReleaseGroupId: ids.rgDawn, musicbrainzAlbumId: ids.relDawn,
    });
    const rescan = async () => {
      const scan = await server.api('/api/library/refresh', { method: 'POST', token: server.admin.token, json: { mode: 'full' } });
      const { jobId } = (await scan.json()) as { jobId: string };
      for (let i = 0; i < 200; i++) {
        if ((await get(`/api/library/refresh/${jobId}`)).body.status === 'completed') return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('scan did not finish');
    };
    await rescan();
    expect((await get('/api/search/unified?q=morning%20tide')).body.library.tracks).toMatchObject([{ title: 'Morning Tide', available: true }]);
    fs.rmSync(file);
    await rescan();
    expect((await get('/api/search/unified?q=morning%20tide')).body.library.tracks).toMatchObject([{ title: 'Morning Tide', albumTitle: 'Dawn', available: false }]);
  });
});

describe('as-you-type suggestions at MusicBrainz pace', () => {
  let paced: TestServer;
  beforeAll(async () => {
    paced = await startTestServer({ env: { TONEARM_MUSICBRAINZ_URL: mb.url, TONEARM_UPSTREAM_SPACING_MS: '400', TONEARM_LIBRARY_WATCH: '0' } });
  }, 60_000);
  afterAll(() => paced.stop());

  it("drops the MusicBrainz searches of a caller's superseded keystrokes that are still waiting for a turn", { timeout: 20_000 }, async () => {
    const seen = () => mb.requests.filter((r) => (r.query.get('query') ?? '').includes('"pag')).length;
    const before = seen();
    const typed = ['pag', 'page', 'pager', 'pager 0'];
    const answers = await Promise.all(
      typed.map(async (q, i) => {
        await new Promise((r) => setTimeout(r, i * 40));
        const res = await paced.api(`/api/search/unified?q=${encodeURIComponent(q)}`, { token: paced.admin.token });
        return (await res.json()) as any;
      }),
    );
    expect(answers.slice(0, 3).map((a) => a.remote.status)).toEqual(['pending', 'pending', 'pending']);
    expect(answers[3].remote.status).toBe('complete');
    expect(answers[3].remote.artists.map((a: any) => a.name)).toContain('Pager 01');
    // Eight searches were asked for; the superseded ones never reached MusicBrainz (at most the first was already on its way).
    expect(seen() - before).toBeLessThanOrEqual(3);
  });
});
