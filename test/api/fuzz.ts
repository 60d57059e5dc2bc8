import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { METHODS } from '../../server/rest/router.js';
import {
  formatFailure,
  jsonValues,
  MALFORMED_ENCODINGS,
  RAW_JSON_BODIES,
  runAll,
  seeded,
  textValues,
  type Attempt,
  type Random,
} from '../helpers/fuzz.js';
import { startListenBrainzFake, type ListenBrainzFake } from '../fakes/listenbrainz/index.js';
import { startPlexTvFake, type PlexTvFake } from '../fakes/plex/index.js';
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.js';
import { makeLibrary, RestClient, waitForScans, type Fixture } from '../rest/harness.js';

/**
 * Every /api operation of the server's own OpenAPI document and every /rest method of its method
 * table gets hostile input; nothing may answer 5xx, drop the connection, or (on /rest) hide a crash
 * behind error 0 "Internal server error". Routes and methods added later are covered by construction.
 *
 * The tests are in two files, each with a server of its own, so the two vitest workers share the
 * work: fuzz.test.ts (the first half of the /api operations) and fuzz-rest.test.ts (the second half,
 * /rest, and the destructive operations). Both halves draw from one seeded sequence over all
 * operations, so together they send exactly the requests one run over every operation would.
 */

const SEED = 20261123;
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Operations that would break the rest of the run (sessions, keys, the admin): fuzzed last. */
const DESTRUCTIVE_API = new Set([
  'POST /api/auth/logout',
  'POST /api/auth/api-key/rotate',
  'POST /api/users/me/password',
  'PATCH /api/users/{id}',
  'DELETE /api/users/{id}',
  'POST /api/settings',
]);
const DESTRUCTIVE_REST = new Set(['changePassword', 'updateUser', 'deleteUser']);

type Schema = {
  type?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  default?: unknown;
  minimum?: number;
};
type Operation = { parameters?: { name: string; in: 'path' | 'query'; schema?: Schema }[]; requestBody?: { content: Record<string, { schema: Schema }> }; 'x-access'?: unknown };

let fx: Fixture;
let server: TestServer;
let victim: { id: number; username: string; password: string };
const ids = { song: '', album: '', artist: '', playlist: '', trackId: '1' };
const anonymous = (h: Record<string, string> = {}) => h;
const admin = (h: Record<string, string> = {}) => ({ ...server.admin.headers, ...h });

/** A plausible value for a JSON schema (the baseline that one fuzzed field then departs from). */
function sampleOf(s: Schema | undefined, depth = 0): unknown {
  if (!s || depth > 6) return 'x';
  if (s.enum?.length) return s.enum[0];
  if (s.default !== undefined) return s.default;
  const alt = s.anyOf ?? s.oneOf ?? s.allOf;
  if (alt?.length) return sampleOf(alt[0], depth + 1);
  switch (s.type) {
    case 'object':
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, sampleOf(v, depth + 1)]));
    case 'array':
      return [sampleOf(s.items, depth + 1)];
    case 'integer':
    case 'number':
      return Math.max(1, s.minimum ?? 1);
    case 'boolean':
      return true;
    default:
      return 'fuzz-value';
  }
}

const enc = encodeURIComponent;
const queryString = (pairs: [string, string][]) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : '');

function apiAttempts(rnd: Random, route: string, method: string, op: Operation): Attempt[] {
  const label = `${method.toUpperCase()} ${route}`;
  const params = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const basePath: Record<string, string> = Object.fromEntries(
    pathParams.map((p) => [p.name, route === '/api/users/{id}' ? String(victim.id) : p.schema?.type === 'integer' ? ids.trackId : '1']),
  );
  const baseQuery: [string, string][] = queryParams.map((p) => [p.name, enc(String(sampleOf(p.schema)))]);
  const url = (pathValues: Record<string, string> = {}, query: [string, string][] = baseQuery) =>
    route.replace(/\{(\w+)\}/g, (_, name: string) => pathValues[name] ?? basePath[name]!) + queryString(query);
  const m = method.toUpperCase();
  const schema = op.requestBody?.content['application/json']?.schema;
  const baseBody = schema ? sampleOf(schema) : undefined;
  const json = (headers = admin()) => ({ 'content-type': 'application/json', ...headers });
  const out: Attempt[] = [];
  const add = (a: Omit<Attempt, 'label' | 'method'>) => out.push({ label, method: m, ...a });
  const withBody = (headers: Record<string, string>) =>
    baseBody === undefined ? { headers } : { headers: json(headers), body: JSON.stringify(baseBody) };

  add({ url: url(), ...withBody(admin()) });
  add({ url: url(), ...withBody(anonymous()) });
  add({ url: url(), ...withBody({ 'x-api-key': server.apiKey }) });
  add({ url: url({}, [...baseQuery, ['api_key', '%E0%A4%A'], ['token', 'a%00'], ['st', enc('x'.repeat(3000))]]), ...withBody(anonymous()) });
  for (const p of pathParams) {
    for (const bad of ['%E0%A4%A', ...rnd.sample(MALFORMED_ENCODINGS.slice(1), 1)]) add({ url: url({ [p.name]: bad }), ...withBody(admin()) });
    for (const v of textValues(rnd, 3)) add({ url: url({ [p.name]: enc(v) || '%20' }), ...withBody(admin()) });
    add({ url: url({ [p.name]: '%E0%A4%A' }), ...withBody(anonymous()) });
  }
  for (const p of queryParams) {
    const others = baseQuery.filter(([k]) => k !== p.name);
    const variants: [string, string][][] = [
      ...textValues(rnd, 2).map((v) => [[p.name, enc(v)]] as [string, string][]),
      [[p.name, rnd.pick(MALFORMED_ENCODINGS)]],
      [[p.name, '1'], [p.name, '2']],
      rnd.pick([[[`${p.name}[a]`, '1']], [[`${p.name}[]`, '%00']], [[`${p.name}[a][b][c][d][e][f][g]`, '1']]] as [string, string][][]),
    ];
    for (const v of variants) add({ url: url({}, [...others, ...v]), ...withBody(admin()) });
  }
  if (queryParams.length) add({ url: url({}, [...baseQuery, ['__proto__[polluted]', '1'], ['constructor', '1']]), ...withBody(admin()) });

  if (schema || m !== 'GET') {
    const props = Object.keys((schema?.properties ?? {}) as object);
    const base = (baseBody && typeof baseBody === 'object' && !Array.isArray(baseBody) ? baseBody : {}) as Record<string, unknown>;
    for (const prop of props)
      for (const v of jsonValues(rnd, 1)) add({ url: url(), headers: json(), body: JSON.stringify({ ...base, [prop]: v }) });
    for (const raw of rnd.sample([...RAW_JSON_BODIES, '[]', 'null', '"x"', '7', '{"unknownKey":1}'], 4)) add({ url: url(), headers: json(), body: raw });
    // Body reading is shared by every route: two of these per operation, a different two each time.
    const unreadable: Omit<Attempt, 'label' | 'method' | 'url'>[] = [
      { headers: { ...admin(), 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: 'not gzip at all' },
      { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3]) },
      { headers: { ...admin(), 'content-type': 'application/json', 'content-encoding': 'x-unknown' }, body: '{}' },
      { headers: { ...admin(), 'content-type': 'application/json; charset=klingon' }, body: '{}' },
      { headers: { ...admin(), 'content-type': 'text/plain' }, body: JSON.stringify(baseBody ?? {}) },
      { headers: { ...admin(), 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=%E0%A4%A&b[]=%00' },
    ];
    for (const u of rnd.sample(unreadable, 2)) add({ url: url(), ...u });
  }
  return out;
}

/** Subsonic parameters of a method from the vendored OpenSubsonic description, else a common set. */
function restParameters(): (method: string) => string[] {
  const spec = JSON.parse(fs.readFileSync(path.join(repoRoot, 'test/specs/opensubsonic/opensubsonic-openapi.bundled.json'), 'utf8')) as {
    paths: Record<string, { get?: { parameters?: { name: string; in: string }[] } }>;
  };
  const auth = new Set(['u', 'p', 't', 's', 'v', 'c', 'f', 'apiKey', 'callback']);
  const byMethod = new Map<string, string[]>();
  const all = new Set<string>();
  for (const [p, item] of Object.entries(spec.paths)) {
    const names = (item.get?.parameters ?? []).filter((x) => x.in === 'query' && !auth.has(x.name)).map((x) => x.name);
    byMethod.set(p.replace(/^\/rest\//, '').toLowerCase(), names);
    names.forEach((n) => all.add(n));
  }
  const common = ['id', 'query', 'count', 'offset', 'size', 'type', 'name', 'url', 'time', 'username', 'position'];
  return (method) => byMethod.get(method.toLowerCase()) ?? common;
}

function restBaseline(method: string, name: string): string {
  if (name === 'username') return victim.username;
  if (name === 'id' || name === 'songId') {
    if (/album/i.test(method)) return ids.album;
    if (/artist/i.test(method)) return ids.artist;
    if (/playlist/i.test(method)) return ids.playlist;
    return ids.song;
  }
  if (name === 'albumId') return ids.album;
  if (name === 'artistId') return ids.artist;
  if (name === 'playlistId') return ids.playlist;
  if (name === 'songIdToAdd') return ids.song;
  if (name === 'type') return 'newest';
  if (name === 'query') return 'Army';
  return '1';
}

/** error 0 "Internal server error" is a 500 in Subsonic clothing. */
const noHiddenCrash = (_status: number, type: string, text: string) =>
  (type.includes('json') || type.includes('xml') || type.includes('javascript')) && /Internal server error/i.test(text)
    ? `hidden crash: ${text.slice(0, 300)}`
    : null;

function restAttempts(rnd: Random, method: string, names: string[]): Attempt[] {
  const auth = (): [string, string][] => {
    const salt = rnd.next().toString(36).slice(2, 10);
    return [['u', ADMIN.username], ['t', createHash('md5').update(ADMIN.password + salt).digest('hex')], ['s', salt], ['v', '1.16.1'], ['c', 'fuzz']];
  };
  const base = names.map((n) => [n, enc(restBaseline(method, n))] as [string, string]);
  const out: Attempt[] = [];
  const add = (query: [string, string][], extra: Partial<Attempt> = {}) =>
    out.push({ label: `/rest ${method}`, method: 'GET', url: `/rest/${method}${queryString(query)}`, check: noHiddenCrash, ...extra });
  const f = () => rnd.pick([['f', 'json'], ['f', 'json'], ['f', 'xml']] as [string, string][]);

  add([...auth(), f(), ...base]);
  add([['v', '1.16.1'], ['c', 'fuzz'], f(), ...base]);
  const odd: [string, string][][] = [
    [...auth(), ['f', 'jsonp'], ['callback', enc('alert(1)')], ...base],
    [...auth(), ['f', '%00'], ...base],
    [['u', '%E0%A4%A'], ['p', 'enc:zz'], ['v', '1.16.1'], ['c', 'fuzz'], f(), ...base],
    [['u', enc('a\u0000')], ['t', '%00'], ['s', ''], ['v', enc('99999999999999999999.1')], f(), ...base],
    [['apiKey', '%E0%A4%A'], ['v', '1.16.1'], f(), ...base],
  ];
  for (const q of rnd.sample(odd, 2)) add(q);
  for (const name of names) {
    const others = base.filter(([k]) => k !== name);
    for (const v of textValues(rnd, 1)) add([...auth(), f(), ...others, [name, enc(v)]]);
    add([...auth(), f(), ...others, [name, rnd.pick(MALFORMED_ENCODINGS)]]);
    add([...auth(), f(), ...others, [name, '1'], [name, enc('-99999999999999999999')], [name, '%00']]);
  }
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const post = (query: [string, string][], headers: Record<string, string>, body: string | Buffer) =>
    add(query, { method: 'POST', headers, body });
  post([f()], form, new URLSearchParams([...auth(), ...base.map(([k, v]) => [k, decodeURIComponent(v)] as [string, string])]).toString());
  const bodies: [[string, string][], Record<string, string>, string][] = [
    [[f()], form, `${new URLSearchParams(auth()).toString()}&id=%E0%A4%A&${names[0] ?? 'x'}=%00`],
    [[f(), ...auth()], { ...form, 'content-encoding': 'gzip' }, 'garbage, not gzip'],
    [[f(), ...auth()], { ...form, 'content-encoding': 'x-unknown' }, 'a=1'],
    [[f(), ...auth()], { 'content-type': 'application/x-www-form-urlencoded; charset=klingon' }, 'a=1'],
  ];
  for (const [q, h, b] of rnd.sample(bodies, 2)) post(q, h, b);
  return out;
}

let listenbrainz: ListenBrainzFake;
let plextv: PlexTvFake;

/** The server, its library and the fakes each fuzz file runs against (its beforeAll). */
export async function setUp() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-fuzz-'));
  fx = makeLibrary(dir, { bulk: false });
  // Routes that must ask an upstream (linking a ListenBrainz token checks it there, a Plex PIN is made
  // by plex.tv) get a real answer.
  listenbrainz = await startListenBrainzFake();
  plextv = await startPlexTvFake();
  server = await startTestServer({
    musicDirs: [fx.music],
    env: {
      TONEARM_LIBRARY_WATCH: '0',
      RATE_LIMIT_MAX: '10000000',
      LOGIN_RATE_LIMIT_MAX: '10000000',
      LOG_LEVEL: 'warn',
      TONEARM_LISTENBRAINZ_URL: listenbrainz.url,
      TONEARM_PLEXTV_URL: plextv.url,
    },
  });
  await waitForScans(server);
  const created = await server.api('/api/users', { method: 'POST', token: server.admin.token, json: { username: 'victim', password: 'victim-password' } });
  expect(created.status).toBe(201);
  victim = { id: ((await created.json()) as { id: number }).id, username: 'victim', password: 'victim-password' };
  const client = new RestClient(server, ADMIN);
  const found = (await client.ok('search3', { query: 'Army of Me' })).searchResult3;
  ids.song = found.song[0].id;
  ids.album = found.song[0].albumId;
  ids.artist = found.song[0].artistId;
  ids.playlist = (await client.ok('createPlaylist', { name: 'fuzz', songId: ids.song })).playlist.id;
  const page = (await (await server.api('/api/library/canonical?kind=tracks&pageSize=1', { token: server.admin.token })).json()) as { items: { id: number }[] };
  ids.trackId = String(page.items[0]!.id);
}

/** Its afterAll. */
export async function tearDown() {
  await server?.stop();
  await listenbrainz?.close();
  await plextv?.close();
  if (fx) fs.rmSync(fx.dir, { recursive: true, force: true });
}

/** The admin session and API key still work (re-login and re-read the key when a destructive call ended them). */
async function restoreAdmin() {
  const me = await server.api('/api/auth/me', { token: server.admin.token });
  if (me.status !== 200) {
    const login = await server.api('/api/auth/login', { method: 'POST', json: ADMIN });
    expect(login.status).toBe(200);
    server.admin.token = ((await login.json()) as { token: string }).token;
    server.admin.headers = { authorization: `Bearer ${server.admin.token}` };
  }
  server.apiKey = ((await (await server.api('/api/auth/api-key', { token: server.admin.token })).json()) as { apiKey: string }).apiKey;
}

async function operations(): Promise<[string, string, Operation][]> {
  const doc = (await (await server.api('/api/openapi.json')).json()) as { paths: Record<string, Record<string, Operation>> };
  return Object.entries(doc.paths).flatMap(([route, ops]) => Object.entries(ops).map(([m, op]) => [route, m, op] as [string, string, Operation]));
}

function report(failures: { attempt: Attempt; problem: string }[]) {
  // At most two requests per operation, so one broken route does not hide the others.
  const shown = new Map<string, number>();
  const sample = failures.filter((f) => {
    const n = shown.get(f.attempt.label) ?? 0;
    shown.set(f.attempt.label, n + 1);
    return n < 2;
  });
  if (failures.length) console.error(`${failures.length} fuzz failures:\n${sample.map(formatFailure).join('\n')}`);
  expect(failures.map((f) => `[${f.attempt.label}] ${f.problem.slice(0, 120)}`)).toEqual([]);
}

/**
 * No /api operation answers 5xx or drops the connection: half `part` (0 or 1) of the non-destructive
 * operations, every other one in the document's order; half 0 also sends the oversized body.
 */
export async function fuzzApi(part: 0 | 1) {
  const rnd = seeded(SEED);
  const ops = (await operations()).filter(([route, m]) => !DESTRUCTIVE_API.has(`${m.toUpperCase()} ${route}`));
  expect(ops.length).toBeGreaterThan(50);
  // Every operation's attempts are made (the seeded sequence stays that of the whole list); this half's are sent.
  const attempts = ops.flatMap(([route, m, op], i) => {
    const mine = apiAttempts(rnd, route, m, op);
    return i % 2 === part ? mine : [];
  });
  console.log(`/api, half ${part + 1} of 2: ${attempts.length} requests`);
  // Over the 5 MB limit, once.
  if (part === 0)
    attempts.push({ label: 'oversized body', method: 'POST', url: '/api/users', headers: { ...admin(), 'content-type': 'application/json' }, body: `{"a":"${'x'.repeat(5_300_000)}"}` });
  report(await runAll(server.url, attempts));
}

/** No /rest method answers 5xx, drops the connection or hides a crash behind error 0. */
export async function fuzzRest() {
  const rnd = seeded(SEED + 1);
  const paramsOf = restParameters();
  const methods = METHODS.map((m) => m.name).filter((n) => !DESTRUCTIVE_REST.has(n));
  expect(methods.length).toBeGreaterThan(50);
  const attempts = methods.flatMap((name) => restAttempts(rnd, name, paramsOf(name)));
  console.log(`/rest: ${attempts.length} requests`);
  attempts.push({ label: '/rest oversized body', method: 'POST', url: '/rest/ping?f=json', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `a=${'x'.repeat(5_300_000)}`, check: noHiddenCrash });
  report(await runAll(server.url, attempts));
}

/** Destructive operations, fuzzed last on their server, one at a time, with the admin restored after each. */
export async function fuzzDestructive() {
  const rnd = seeded(SEED + 2);
  const failures: { attempt: Attempt; problem: string }[] = [];
  const ops = (await operations()).filter(([route, m]) => DESTRUCTIVE_API.has(`${m.toUpperCase()} ${route}`));
  expect(ops.length).toBe(DESTRUCTIVE_API.size);
  const paramsOf = restParameters();
  const groups: (() => Attempt[])[] = [
    ...ops.map(([route, m, op]) => () => apiAttempts(rnd, route, m, op)),
    ...[...DESTRUCTIVE_REST].map((name) => () => restAttempts(rnd, name, paramsOf(name))),
  ];
  for (const make of groups) {
    // Built per group: the headers carry the current session and key.
    for (const attempt of make()) {
      const headers = attempt.headers && { ...attempt.headers };
      if (headers?.authorization) headers.authorization = `Bearer ${server.admin.token}`;
      if (headers?.['x-api-key']) headers['x-api-key'] = server.apiKey;
      failures.push(...(await runAll(server.url, [{ ...attempt, ...(headers && { headers }) }], 1)));
      await restoreAdmin();
    }
  }
  report(failures);
}
