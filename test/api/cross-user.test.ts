import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCoverArtFake, type CoverArtFake } from '../fakes/coverart/index.js';
import { startMusicBrainzFake, type MusicBrainzFake } from '../fakes/musicbrainz/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeLibrary, RestClient, waitForScans, type Fixture } from '../rest/harness.js';

/**
 * The cross-user walk: a plain user (mallory, every user permission but library deletion) calls every /api operation of
 * the server's own OpenAPI document with another user's (alice's) ids in every path parameter and in
 * every id-like body field. Nothing may answer 5xx, and nothing of alice's may change: her
 * playlists, flows, shared playlists, favourites, ratings, bookmarks, play queue, app keys and her
 * account read the same before and after. Operations added later are walked by construction.
 */

const ALICE = { username: 'alice', password: 'alice password' };
const MALLORY = { username: 'mallory', password: 'mallory password' };
/**
 * Every permission but deleting from the shared library: a user allowed to delete files there may
 * remove a track alice has bookmarked, which is that permission's purpose, not a cross-user leak.
 */
const USER_PERMISSIONS = { accessSettings: true, accessFlow: true, addArtist: true, addAlbum: true, changeMonitoring: true, deleteArtist: false, deleteAlbum: false };
/** Mallory's own session would end (and the walk with it); they change nothing of alice's anyway. */
const SKIP = new Set(['POST /api/auth/logout', 'POST /api/users/me/password']);

type Schema = { type?: string; enum?: unknown[]; properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[]; oneOf?: Schema[]; default?: unknown; minimum?: number };
type Operation = { parameters?: { name: string; in: string; schema?: Schema }[]; requestBody?: { content: Record<string, { schema: Schema }> } };

let fx: Fixture;
let server: TestServer;
let musicbrainz: MusicBrainzFake;
let coverart: CoverArtFake;
let aliceToken: string;
let malloryToken: string;
const aliceIds: string[] = [];
let alice: RestClient;

async function login(creds: { username: string; password: string }): Promise<string> {
  const res = await server.api('/api/auth/login', { method: 'POST', json: creds });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

/** A plausible value, with alice's id wherever a field names an id. */
function sample(s: Schema | undefined, name: string, id: string, depth = 0): unknown {
  if (/id$/i.test(name) || /ids$/i.test(name)) {
    if (s?.type === 'array') return [s.items?.type === 'integer' || s.items?.type === 'number' ? Number(id) || 1 : id];
    return s?.type === 'integer' || s?.type === 'number' ? Number(id) || 1 : id;
  }
  if (!s || depth > 5) return 'x';
  if (s.enum?.length) return s.enum[0];
  if (s.default !== undefined) return s.default;
  const alt = s.anyOf ?? s.oneOf;
  if (alt?.length) return sample(alt[0], name, id, depth + 1);
  switch (s.type) {
    case 'object':
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, sample(v, k, id, depth + 1)]));
    case 'array':
      return [sample(s.items, name, id, depth + 1)];
    case 'integer':
    case 'number':
      return Math.max(1, s.minimum ?? 1);
    case 'boolean':
      return false;
    default:
      return 'walk';
  }
}

/** Everything of alice's, as she sees it. */
async function aliceState(): Promise<unknown> {
  const get = async (p: string) => {
    const res = await server.api(p, { token: aliceToken });
    return { status: res.status, body: res.status === 200 ? await res.json() : null };
  };
  const rest = async (method: string, params: Record<string, string> = {}) => (await alice.ok(method, params)) as Record<string, unknown>;
  const playlists = ((await rest('getPlaylists')).playlists as { playlist?: { id: string }[] }).playlist ?? [];
  const detail = [];
  for (const p of playlists) detail.push(await rest('getPlaylist', { id: p.id }));
  return {
    me: await get('/api/auth/me'),
    flows: await get('/api/playlists/flows'),
    shared: await get('/api/playlists/shared-playlists'),
    keys: await get('/api/users/me/rest-keys'),
    favorites: await get('/api/library/favorites'),
    queue: await get('/api/library/playback-queue'),
    scrobbling: await get('/api/scrobbling/status'),
    playlists,
    detail,
    starred: await rest('getStarred2'),
    bookmarks: await rest('getBookmarks'),
    playQueue: await rest('getPlayQueue'),
  };
}

beforeAll(async () => {
  fx = makeLibrary(fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-cross-')), { bulk: false });
  // MusicBrainz and the Cover Art Archive answer (404: they know none of alice's ids) instead of
  // being unreachable: an unreachable MusicBrainz is retried with backoff (4 s a request), which made
  // up most of the walk's time, and the routes run past the upstream call to their own checks.
  musicbrainz = await startMusicBrainzFake();
  coverart = await startCoverArtFake();
  server = await startTestServer({
    musicDirs: [fx.music],
    env: {
      TONEARM_LIBRARY_WATCH: '0',
      RATE_LIMIT_MAX: '10000000',
      LOGIN_RATE_LIMIT_MAX: '10000000',
      LOG_LEVEL: 'warn',
      TONEARM_MUSICBRAINZ_URL: musicbrainz.url,
      TONEARM_COVERART_URL: coverart.url,
      TONEARM_UPSTREAM_SPACING_MS: '0',
    },
  });
  await waitForScans(server);
  for (const creds of [ALICE, MALLORY]) {
    const res = await server.api('/api/users', { method: 'POST', token: server.admin.token, json: { ...creds, permissions: USER_PERMISSIONS } });
    expect(res.status).toBe(201);
    if (creds === ALICE) aliceIds.push(String(((await res.json()) as { id: number }).id));
  }
  aliceToken = await login(ALICE);
  malloryToken = await login(MALLORY);
  alice = new RestClient(server, ALICE);

  // Alice's things: a playlist, a favourite, a rating, a bookmark, a play queue, a flow, a shared
  // playlist and an app key.
  const song = (await alice.ok('search3', { query: 'Army of Me' })).searchResult3.song[0] as { id: string };
  const playlist = (await alice.ok('createPlaylist', { name: 'Alice road trip', songId: song.id })).playlist as { id: string };
  await alice.ok('star', { id: song.id });
  await alice.ok('setRating', { id: song.id, rating: 4 });
  await alice.ok('createBookmark', { id: song.id, position: 4200 });
  await alice.ok('savePlayQueue', { id: song.id, current: song.id, position: 100 });
  const flow = await server.api('/api/playlists/flows', {
    method: 'POST',
    token: aliceToken,
    json: { name: 'Alice flow', size: 10, mix: { discover: 100 }, scheduleDays: [5], scheduleTime: '00:00' },
  });
  expect(flow.status).toBe(200);
  const flowBody = (await flow.json()) as { flow?: { id: string }; id?: string };
  const shared = await server.api('/api/playlists/shared-playlists', { method: 'POST', token: aliceToken, json: { name: 'Alice shared' } });
  expect([200, 201]).toContain(shared.status);
  const sharedBody = (await shared.json()) as { playlist?: { id: string }; id?: string };
  const key = await server.api('/api/users/me/rest-keys', { method: 'POST', token: aliceToken, json: { name: 'phone' } });
  const keyBody = (await key.json()) as { restKey?: { id: number }; id?: number };
  const page = (await (await server.api('/api/library/canonical?kind=tracks&pageSize=1', { token: aliceToken })).json()) as { items: { id: number }[] };
  aliceIds.push(
    playlist.id,
    String(flowBody.flow?.id ?? flowBody.id),
    String(sharedBody.playlist?.id ?? sharedBody.id),
    String(keyBody.restKey?.id ?? keyBody.id),
    song.id,
    String(page.items[0]!.id),
  );
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await musicbrainz?.close();
  await coverart?.close();
  if (fx) fs.rmSync(fx.dir, { recursive: true, force: true });
});

describe('the cross-user walk', () => {
  it("no operation answers 500 to another user or changes alice's things", async () => {
    const before = await aliceState();
    const doc = (await (await server.api('/api/openapi.json')).json()) as { paths: Record<string, Record<string, Operation>> };
    const failures: string[] = [];
    let requests = 0;
    for (const [route, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const label = `${method.toUpperCase()} ${route}`;
        if (SKIP.has(label)) continue;
        const hasPathParams = /\{\w+\}/.test(route);
        const schema = op.requestBody?.content['application/json']?.schema;
        // Every id in every path parameter; bodies get alice's user, playlist and track ids.
        const ids = hasPathParams ? aliceIds : schema ? [aliceIds[0]!, aliceIds[1]!, aliceIds[aliceIds.length - 1]!] : [aliceIds[0]!];
        for (const id of ids) {
          const url = route.replace(/\{(\w+)\}/g, () => encodeURIComponent(id));
          const query = (op.parameters ?? [])
            .filter((p) => p.in === 'query')
            .map((p) => `${p.name}=${encodeURIComponent(String(sample(p.schema, p.name, id)))}`)
            .join('&');
          const res = await server.api(url + (query ? `?${query}` : ''), {
            method: method.toUpperCase(),
            token: malloryToken,
            ...(schema && { json: sample(schema, '', id) }),
          });
          requests++;
          await res.arrayBuffer().catch(() => undefined);
          // 502/503 name an upstream this test runs without (MusicBrainz, ListenBrainz): an answer, not a crash.
          if (res.status === 500 || res.status > 504) failures.push(`${label} with ${id}: ${res.status}`);
          // A walk that ended mallory's session goes on with a fresh one.
          if (res.status === 401) malloryToken = await login(MALLORY);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(requests).toBeGreaterThan(200);
    expect(await aliceState()).toEqual(before);
  }, 300_000);
});
