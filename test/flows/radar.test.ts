import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlowPlanner } from '../../server/domain/flows/planner.js';
import { startLastFmFake, type LastFmFake } from '../fakes/lastfm/index.js';
import { startMusicBrainzFake, type MusicBrainzFake } from '../fakes/musicbrainz/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addLibrary, flowWorld, json, runFlow, runTracks } from './helpers.js';

/**
 * Release radar against the Last.fm and MusicBrainz fakes: tracks of the recent Albums and EPs of the
 * recommended artists that the library lacks (old albums, live albums and owned albums are left out),
 * up to one track per recent album (reference §3.8), the artist's most played track of the album
 * when it has one, with the album's name and year. With onePerArtist one track per artist (its newest
 * album's); without (the template's default), one of each new album, so an artist with two new
 * albums has two, and each artist's newest album comes before anyone's second.
 */

let server: TestServer;
let lastfm: LastFmFake;
let mb: MusicBrainzFake;
const REC1 = '00000000-0000-4000-8000-000100000001';
const REC2 = '00000000-0000-4000-8000-000100000002';
const REC3 = '00000000-0000-4000-8000-000100000003';

const day = (t: number) => new Date(t).toISOString().slice(0, 10);
const tracks = (prefix: string, titles: string[]) => titles.map((title, i) => ({ id: `${prefix}-t${i}`, recordingId: `${prefix}-r${i}`, title, lengthMs: 200_000 + i }));

beforeAll(async () => {
  [lastfm, mb] = await Promise.all([startLastFmFake(flowWorld()), startMusicBrainzFake()]);
  server = await startTestServer({ env: { TONEARM_LASTFM_URL: lastfm.url, TONEARM_MUSICBRAINZ_URL: mb.url, TONEARM_UPSTREAM_SPACING_MS: '0', ALLOW_PRIVATE_TARGETS: '127.0.0.1' } });
  const now = server.clock.now();
  const recent = day(now - 20 * 86_400_000);
  mb.add({
    id: REC1,
    name: 'Rec 1',
    releaseGroups: [
      { id: '22222222-0000-4000-8000-000000000001', title: 'Fresh Album', primaryType: 'Album', firstReleaseDate: recent, releases: [{ id: '22222222-0000-4000-8000-000000000006', title: 'Fresh Album', tracks: tracks('new', ['Intro', 'Rec 1 Song 3', 'Outro']) }] },
      { id: '22222222-0000-4000-8000-000000000002', title: 'Old Album', primaryType: 'Album', firstReleaseDate: '2001-05-01', releases: [{ id: '22222222-0000-4000-8000-000000000007', title: 'Old Album', tracks: tracks('old', ['Rec 1 Song 1']) }] },
      { id: '22222222-0000-4000-8000-000000000003', title: 'Live Now', primaryType: 'Album', secondaryTypes: ['Live'], firstReleaseDate: recent, releases: [{ id: '22222222-0000-4000-8000-000000000008', title: 'Live Now', tracks: tracks('live', ['Rec 1 Song 2']) }] },
    ],
  });
  mb.add({
    id: REC2,
    name: 'Rec 2',
    releaseGroups: [
      { id: '22222222-0000-4000-8000-000000000004', title: 'New EP', primaryType: 'EP', firstReleaseDate: day(now - 5 * 86_400_000), releases: [{ id: '22222222-0000-4000-8000-000000000009', title: 'New EP', tracks: tracks('ep', ['Only Here']) }] },
      { id: '22222222-0000-4000-8000-000000000005', title: 'Owned One', primaryType: 'Album', firstReleaseDate: recent, releases: [{ id: '22222222-0000-4000-8000-000000000010', title: 'Owned One', tracks: tracks('own', ['Rec 2 Song 1']) }] },
    ],
  });
  mb.add({
    id: REC3,
    name: 'Rec 3',
    releaseGroups: [
      { id: '22222222-0000-4000-8000-000000000011', title: 'Third EP', primaryType: 'EP', firstReleaseDate: day(now - 10 * 86_400_000), releases: [{ id: '22222222-0000-4000-8000-000000000012', title: 'Third EP', tracks: tracks('tep', ['EP Two', 'Rec 3 Song 2']) }] },
      { id: '22222222-0000-4000-8000-000000000013', title: 'Third Light', primaryType: 'Album', firstReleaseDate: day(now - 30 * 86_400_000), releases: [{ id: '22222222-0000-4000-8000-000000000014', title: 'Third Light', tracks: tracks('tl', ['T1', 'Rec 3 Song 1', 'T3', 'T4']) }] },
    ],
  });
  const settings = await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { integrations: { lastfm: { apiKey: lastfm.apiKey } }, downloads: { worker: { running: false } } } });
  expect(settings.status).toBe(200);
  addLibrary(server, ['Lib A', 'Lib B'], []);
  const db = server.ctx.db;
  db.prepare(`INSERT INTO library_artists (identity_key, mbid, name, sort_name, created_at, updated_at) VALUES ('mbid:rec2', ?, 'Rec 2 Owner', 'rec 2 owner', 0, 0)`).run('11111111-0000-4000-8000-000000000000');
  const artistId = (db.prepare(`SELECT id FROM library_artists WHERE identity_key = 'mbid:rec2'`).get() as { id: number }).id;
  db.prepare(
    `INSERT INTO library_albums (identity_key, mbid, artist_id, title, sort_name, album_artist, artist_sort_name, created_at, updated_at) VALUES ('al:owned', '22222222-0000-4000-8000-000000000005', ?, 'Owned One', 'owned one', 'Rec 2', 'rec 2', 0, 0)`,
  ).run(artistId);
  await server.ctx.discovery.refreshUser(1);
}, 60_000);

afterAll(async () => {
  await Promise.all([server?.stop(), lastfm?.close(), mb?.close()]);
});

describe('release radar', () => {
  it('plans one track per artist with onePerArtist, from its newest album the library lacks, from the metadata layer', async () => {
    const { flow } = await json(await server.api('/api/playlists/flows', { method: 'POST', token: server.admin.token, json: { templateId: 'release-radar', size: 5, onePerArtist: true } }));
    expect(flow).toMatchObject({ onePerArtist: true, templateId: 'release-radar' });
    const run = await runFlow(server, server.admin.token, flow.id);
    const planned = [...runTracks(server, run.id), ...runTracks(server, run.id, 1)];
    expect(planned.map((t) => `${t.artistName}|${t.trackName}`)).toEqual(['Rec 2|Only Here', 'Rec 3|Rec 3 Song 2', 'Rec 1|Rec 1 Song 3']);
    const rows = server.ctx.db.prepare('SELECT album_name AS album, year FROM flow_tracks WHERE run_id = ? ORDER BY reserve, position').all(run.id) as { album: string; year: number }[];
    expect(rows.map((r) => r.album)).toEqual(['New EP', 'Third EP', 'Fresh Album']);
    expect(rows.every((r) => r.year === new Date(server.clock.now()).getUTCFullYear() || r.year === new Date(server.clock.now()).getUTCFullYear() - 1)).toBe(true);
    // Bounded: the recommended artists were looked up, each at most once.
    const artistLookups = mb.requests.filter((r) => /\/artist\/[0-9a-f-]{36}/.test(r.path) || /\/release-group\?artist=/.test(r.path));
    expect(artistLookups.length).toBeLessThanOrEqual(24);
    // The next run reads the albums it knows from the cache: only artists not looked up yet are, within the budget.
    const before = mb.requests.length;
    const run2 = await runFlow(server, server.admin.token, flow.id);
    expect(run2.status).not.toBe('planning');
    expect(mb.requests.slice(before).filter((r) => /\/release(-group)?\/22222222-/.test(r.path))).toEqual([]);
    expect(mb.requests.length - before).toBeLessThanOrEqual(24);
  }, 30_000);

  it('takes one track of each new album without onePerArtist, several albums of one artist included, spread across artists', async () => {
    const templates = await json(await server.api('/api/playlists/flow-templates', { token: server.admin.token }));
    expect(templates.templates.find((t: { id: string }) => t.id === 'release-radar')).toBeDefined();
    const { flow } = await json(await server.api('/api/playlists/flows', { method: 'POST', token: server.admin.token, json: { templateId: 'release-radar', name: 'Radar All', size: 6 } }));
    // The template's default.
    expect(flow.onePerArtist).toBe(false);
    const run = await runFlow(server, server.admin.token, flow.id);
    const main = runTracks(server, run.id);
    const reserve = runTracks(server, run.id, 1);
    const label = (t: { artistName: string; trackName: string }) => `${t.artistName}|${t.trackName}`;
    // Each album's best track, every artist's newest album first: four recent albums, four tracks,
    // however large the playlist (never a second track of an album).
    expect(main.map(label)).toEqual(['Rec 2|Only Here', 'Rec 3|Rec 3 Song 2', 'Rec 1|Rec 1 Song 3', 'Rec 3|Rec 3 Song 1']);
    expect(reserve).toEqual([]);
    const albums = server.ctx.db.prepare(`SELECT album_name AS album, COUNT(*) AS n FROM flow_tracks WHERE run_id = ? GROUP BY album_name ORDER BY album_name`).all(run.id);
    expect(albums).toEqual([
      { album: 'Fresh Album', n: 1 },
      { album: 'New EP', n: 1 },
      { album: 'Third EP', n: 1 },
      { album: 'Third Light', n: 1 },
    ]);
    // Switched to onePerArtist: one track per artist again.
    const updated = await json(await server.api(`/api/playlists/flows/${flow.id}`, { method: 'PUT', token: server.admin.token, json: { onePerArtist: true } }));
    expect(updated.flow.onePerArtist).toBe(true);
    const plan = await new FlowPlanner(server.ctx).plan({ ...updated.flow, ownerUserId: 1, templateId: 'release-radar' }, { reserveSize: 0 });
    expect(plan.tracks.map(label)).toEqual(['Rec 2|Only Here', 'Rec 3|Rec 3 Song 2', 'Rec 1|Rec 1 Song 3']);
  }, 30_000);

  it('filters by year with the album year the metadata cache knows when a track has none', async () => {
    // Rec 1's release groups are cached by the radar test above; its top tracks name their albums (as Deezer's do).
    const repo = server.ctx.discovery.repo;
    const top = (album: string | null, n: number) => ({ name: `Rec 1 Year ${n}`, mbid: null, albumName: album, durationMs: null, year: null });
    repo.putCache('flow-top-tracks', 'rec 1', [top('Old Album', 1), top('Fresh Album', 2), top(null, 3), top('Old Album', 4)], server.clock.now());
    const plan = (yearFrom: number | null, yearTo: number | null) =>
      new FlowPlanner(server.ctx).plan({
        ownerUserId: 1, size: 60, mix: { discover: 100, mix: 0, trending: 0, focus: 0 }, tags: [], relatedArtists: [], deepDive: false,
        includeLibraryTracks: true, onePerArtist: false, yearFrom, yearTo,
      }, { reserveSize: 0 });
    const ofRec1 = async (from: number | null, to: number | null) =>
      (await plan(from, to)).tracks.filter((t) => t.artistName === 'Rec 1').map((t) => `${t.trackName}|${t.year}`).sort();
    const thisYear = Number((server.ctx.db.prepare(`SELECT substr(first_release_date, 1, 4) AS y FROM metadata_release_groups WHERE title = 'Fresh Album'`).get() as { y: string }).y);
    // No range: all three kinds of track (perArtist 3 allows three).
    expect(await ofRec1(null, null)).toEqual(['Rec 1 Year 1|2001', `Rec 1 Year 2|${thisYear}`, 'Rec 1 Year 3|null']);
    // From 2020: the Old Album tracks go, the one of an unknown album stays.
    expect(await ofRec1(2020, null)).toEqual([`Rec 1 Year 2|${thisYear}`, 'Rec 1 Year 3|null']);
    // Up to 2005: the Fresh Album track goes.
    expect(await ofRec1(null, 2005)).toEqual(['Rec 1 Year 1|2001', 'Rec 1 Year 3|null', 'Rec 1 Year 4|2001']);
  });
});
