import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { plexAccount, plexServerTokens, plexTracks } from '../../server/db/plex.js';
import { decrypt } from '../../server/secrets.js';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startPlexServerFake, type PlexServerFake } from '../fakes/plex/index.js';
import { body, connectPlex, createUser, PLEX_APP_URL, plexEnv, startPlexFakes, type PlexFakes } from './helpers.js';

/** Settings → Library → Plex (api.md §4.13, `plex` on the wire): PIN sign-in, servers, test, libraries, access check, sync. */

let f: PlexFakes;
let server: TestServer;
let dir: string;
let music: string;
let userToken: string;
/** Every answer body and log line of this file, to prove no token ever shows up in one. */
const seen: string[] = [];
let restoreStdout: () => void;

const admin = (p: string, init: { method?: string; json?: unknown } = {}) =>
  server.api(p, { ...init, token: server.admin.token }).then(async (res) => {
    const text = await res.text();
    seen.push(text);
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  });

beforeAll(async () => {
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    seen.push(String(chunk));
    return true;
  });
  restoreStdout = () => spy.mockRestore();
  f = await startPlexFakes();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-plex-'));
  music = path.join(dir, 'music');
  const template = makeMp3Template(dir);
  for (const [i, title] of ['Roads', 'Sour Times', 'Glory Box'].entries()) {
    writeTaggedMp3(path.join(music, 'Portishead', 'Dummy', `0${i + 1} ${title}.mp3`), template, { title, artist: 'Portishead', albumArtist: 'Portishead', album: 'Dummy', track: i + 1 });
  }
  server = await startTestServer({ musicDirs: [music], env: { ...plexEnv(f), LOG_LEVEL: 'debug', TONEARM_LIBRARY_WATCH: '0' } });
  const scan = await body(await server.api('/api/library/refresh', { method: 'POST', token: server.admin.token, json: { mode: 'full' } }));
  for (let i = 0; i < 200; i++) {
    if ((await body(await server.api(`/api/library/refresh/${scan.jobId}`, { token: server.admin.token }))).status === 'completed') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  userToken = (await createUser(server, 'ann')).token;
  f.pms.sections = [
    { key: '1', title: 'Films', type: 'movie', locations: ['/plexmedia/films'] },
    { key: '3', title: 'Music', type: 'artist', locations: ['/plexmedia/music'] },
    { key: '4', title: 'Audiobooks', type: 'artist', locations: ['/plexmedia/books'] },
  ];
  f.pms.tracks = [
    ...['Roads', 'Sour Times', 'Glory Box'].map((title, i) => ({ ratingKey: String(801 + i), sectionKey: '3', title, artist: 'Portishead', album: 'Dummy', file: `/plexmedia/music/Portishead/Dummy/0${i + 1} ${title}.mp3` })),
    { ratingKey: '900', sectionKey: '3', title: 'Unfinished Sympathy', artist: 'Massive Attack', album: 'Blue Lines', file: '/plexmedia/music/Massive Attack/Blue Lines/05.flac' },
  ];
}, 60_000);

afterAll(async () => {
  restoreStdout?.();
  await server?.stop();
  await f?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('before a Plex account is connected', () => {
  it('status says so, and what needs the account answers 409 NOT_CONFIGURED naming the setting', async () => {
    expect((await admin('/api/settings/plex/status')).body).toEqual({ connected: false, plexUsername: null, connectedAt: null, server: null, librarySectionId: null, sync: null });
    const resources = await admin('/api/settings/plex/resources', { method: 'POST', json: {} });
    expect(resources.status).toBe(409);
    expect(resources.body).toMatchObject({ error: 'Not configured', code: 'NOT_CONFIGURED' });
    expect((await admin('/api/settings/plex/libraries')).status).toBe(409);
    expect((await admin('/api/settings/plex/sync', { method: 'POST' })).body.code).toBe('NOT_CONFIGURED');
  });

  it('every settings route needs an administrator', async () => {
    const res = await server.api('/api/settings/plex/auth/pin', { method: 'POST', token: userToken, json: {} });
    expect(res.status).toBe(403);
    expect((await body(res)).message).toBe('Admin access required');
    expect((await server.api('/api/settings/plex/status')).status).toBe(401);
  });
});

describe('PIN sign-in', () => {
  it('is pending until approved on plex.tv, then stores the token encrypted and answers only the account name', async () => {
    const start = await admin('/api/settings/plex/auth/pin', { method: 'POST', json: {} });
    expect(start.status).toBe(200);
    const pin = start.body;
    expect(Object.keys(pin).sort()).toEqual(['authUrl', 'clientId', 'code', 'expiresAt', 'expiresIn', 'pinId']);
    expect(pin.expiresIn).toBe(1800);
    expect(pin.authUrl).toBe(`${PLEX_APP_URL}/auth#?clientID=${pin.clientId}&code=${pin.code}&context%5Bdevice%5D%5Bproduct%5D=Tonearm`);
    // The client identifier is this installation's, sent on every call, and the same on the next PIN.
    const created = f.tv.requests.filter((r) => r.path === '/api/v2/pins').at(-1)!;
    expect(created.headers['x-plex-client-identifier']).toBe(pin.clientId);
    expect(created.headers['x-plex-product']).toBe('Tonearm');

    expect((await admin('/api/settings/plex/auth/check', { method: 'POST', json: { pinId: pin.pinId, code: pin.code } })).body).toMatchObject({ pending: true, linked: false, expired: false });
    f.tv.approve(pin.pinId, f.ownerToken);
    const done = await admin('/api/settings/plex/auth/check', { method: 'POST', json: { pinId: pin.pinId, code: pin.code } });
    expect(done.body).toEqual({ pending: false, linked: true, expired: false, plexUsername: 'owner' });

    const row = plexAccount.get(server.ctx.db)!;
    expect(row.tokenEnc).not.toContain(f.ownerToken);
    expect(decrypt(server.ctx.secrets.encryptionKey, row.tokenEnc)).toBe(f.ownerToken);
    expect((await admin('/api/settings/plex/status')).body).toMatchObject({ connected: true, plexUsername: 'owner' });

    // A PIN is used once.
    const again = await admin('/api/settings/plex/auth/check', { method: 'POST', json: { pinId: pin.pinId, code: pin.code } });
    expect(again.status).toBe(404);
    expect(again.body.error).toBe('Plex PIN not found');
    const next = (await admin('/api/settings/plex/auth/pin', { method: 'POST', json: {} })).body;
    expect(next.clientId).toBe(pin.clientId);
  });

  it('a PIN plex.tv let expire answers expired, and so does one past its time here (without asking plex.tv)', async () => {
    const a = (await admin('/api/settings/plex/auth/pin', { method: 'POST' })).body;
    f.tv.expire(a.pinId);
    expect((await admin('/api/settings/plex/auth/check', { method: 'POST', json: { pinId: a.pinId } })).body).toMatchObject({ pending: false, linked: false, expired: true, message: expect.stringMatching(/expired/) });

    const b = (await admin('/api/settings/plex/auth/pin', { method: 'POST' })).body;
    const checks = f.tv.requests.length;
    server.clock.advance(1801 * 1000);
    expect((await admin('/api/settings/plex/auth/check', { method: 'POST', json: { pinId: b.pinId } })).body.expired).toBe(true);
    expect(f.tv.requests.length).toBe(checks);
    // A PIN never started here, or a wrong code, is 404.
    expect((await admin('/api/settings/plex/auth/check', { method: 'POST', json: { pinId: '123456' } })).status).toBe(404);
    expect((await admin('/api/settings/plex/auth/check', { method: 'POST', json: { pinId: 'x' } })).status).toBe(400);
  });
});

describe('servers and libraries', () => {
  it('lists the account servers with connections and keeps each server token encrypted, never answered', async () => {
    const res = await admin('/api/settings/plex/resources', { method: 'POST', json: {} });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(1);
    expect(res.body.servers[0]).toMatchObject({ name: 'Den', machineIdentifier: f.pms.machineIdentifier, owned: true, presence: true });
    expect(res.body.servers[0].connections[0]).toEqual({ uri: f.pms.url, protocol: 'http', address: '127.0.0.1', port: f.pms.port, local: true, relay: false });
    expect(JSON.stringify(res.body)).not.toContain('accessToken');
    expect(decrypt(server.ctx.secrets.encryptionKey, plexServerTokens.get(server.ctx.db, f.pms.machineIdentifier)!)).toBe(f.serverToken);
  });

  it("tests an address with the server's own token (the neutral spelling is the same route)", async () => {
    const res = await admin('/api/settings/plex/test', { method: 'POST', json: { url: f.pms.url } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Connected to Plex Media Server 1.41.3.9314-a0bfb8370 (2 music libraries)', machineIdentifier: f.pms.machineIdentifier, version: '1.41.3.9314-a0bfb8370', musicLibraries: 2 });
    expect(f.pms.requests.filter((r) => r.path === '/library/sections').at(-1)!.headers['x-plex-token']).toBe(f.serverToken);
    expect((await admin('/api/settings/mediaserver/test', { method: 'POST', json: { url: f.pms.url } })).body.success).toBe(true);
    // A token sent along (as some clients do) is ignored: the stored one is used.
    expect((await admin('/api/settings/plex/test', { method: 'POST', json: { url: f.pms.url, token: 'not-this-one' } })).body.success).toBe(true);
    expect(f.pms.requests.filter((r) => r.path === '/library/sections').at(-1)!.headers['x-plex-token']).toBe(f.serverToken);
    expect((await admin('/api/settings/plex/test', { method: 'POST', json: {} })).body.code).toBe('NOT_CONFIGURED');
  });

  it('lists the music libraries of the saved server, in JSON and in XML', async () => {
    const saved = await admin('/api/settings', {
      method: 'POST',
      json: { integrations: { plex: { url: f.pms.url, machineIdentifier: f.pms.machineIdentifier, serverName: 'Den', pathMappings: [{ from: '/plexmedia/music', to: music }] } } },
    });
    expect(saved.status).toBe(200);
    const expected = [
      { key: '3', title: 'Music', type: 'artist', agent: 'tv.plex.agents.music', scanner: 'Plex Music', locations: ['/plexmedia/music'], selected: false },
      { key: '4', title: 'Audiobooks', type: 'artist', agent: 'tv.plex.agents.music', scanner: 'Plex Music', locations: ['/plexmedia/books'], selected: false },
    ];
    expect((await admin('/api/settings/plex/libraries')).body).toEqual({ libraries: expected });
    f.pms.xmlOnly = true;
    try {
      expect((await admin('/api/settings/plex/libraries')).body).toEqual({ libraries: expected });
    } finally {
      f.pms.xmlOnly = false;
    }
  });

  it('checks that a library file Plex reports is readable here through the path mappings', async () => {
    expect((await admin('/api/settings/plex/libraries/3/access-check')).body).toEqual({
      checked: true,
      accessible: true,
      reportedPath: '/plexmedia/music/Portishead/Dummy/01 Roads.mp3',
      localPath: path.join(music, 'Portishead/Dummy/01 Roads.mp3'),
      reason: null,
      libraryTitle: 'Music',
    });
    expect((await admin('/api/settings/plex/libraries/4/access-check')).body).toEqual({ checked: false, reason: "This library doesn't have any tracks yet to check against." });
    const missing = await admin('/api/settings/plex/libraries/9/access-check');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('Plex library not found');
  });

  it('a Plex error page is reduced to its title, and a refused token is UPSTREAM_AUTH_FAILED', async () => {
    f.pms.htmlErrorNext(2, 500);
    const broken = await admin('/api/settings/plex/libraries');
    expect(broken.status).toBe(502);
    expect(broken.body.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(broken.body.message).toContain('(500 Internal Server Error)');
    expect(broken.body.message).not.toMatch(/<|stack trace/);
    f.pms.tokens.delete(f.serverToken);
    try {
      const refused = await admin('/api/settings/plex/libraries');
      expect(refused.status).toBe(502);
      expect(refused.body.code).toBe('UPSTREAM_AUTH_FAILED');
      expect(refused.body.message).toContain('(Unauthorized)');
      expect(refused.body.message).not.toContain('<');
    } finally {
      f.pms.tokens.add(f.serverToken);
    }
  });
});

describe('tokens stay with their addresses', () => {
  let other: PlexServerFake;
  /** Every token the other host was sent, in a header or the query. */
  const tokensAt = (fake: PlexServerFake) => fake.requests.map((r) => r.headers['x-plex-token'] ?? r.query.get('X-Plex-Token')).filter(Boolean);
  const save = (url: string) => admin('/api/settings', { method: 'POST', json: { integrations: { plex: { url, machineIdentifier: f.pms.machineIdentifier } } } });

  beforeAll(async () => {
    // Another host answering as the same server: it must never get the stored token.
    other = await startPlexServerFake({ machineIdentifier: f.pms.machineIdentifier });
    other.tokens.add(f.serverToken);
    other.sections = f.pms.sections;
  });
  afterAll(async () => {
    await other?.close();
  });

  it('a test of an address plex.tv does not list sends no token and asks for a re-link', async () => {
    const res = await admin('/api/settings/plex/test', { method: 'POST', json: { url: other.url } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'SECRET_REENTRY_REQUIRED', details: [{ path: 'url' }] });
    expect(res.body.message).toContain(new URL(other.url).origin);
    expect(res.body.message).toMatch(/connect Plex again/);
    expect(other.requests.map((r) => r.path)).toEqual(['/identity']);
    expect(tokensAt(other)).toEqual([]);
  });

  it('the saved URL moved to another host: calls fail with 409 naming the setting, the host gets no token; a listed URI works again', async () => {
    expect((await save(other.url)).status).toBe(200);
    for (const p of ['/api/settings/plex/libraries', '/api/settings/plex/libraries/3/access-check']) {
      const res = await admin(p);
      expect(res.status, p).toBe(409);
      expect(res.body).toMatchObject({ code: 'NOT_CONFIGURED', error: 'Not configured' });
      expect(res.body.message).toMatch(/not an address plex\.tv lists/);
    }
    expect((await admin('/api/settings/plex/sync', { method: 'POST' })).status).toBe(409);
    const test = await admin('/api/settings/plex/test', { method: 'POST', json: {} });
    expect([test.status, test.body.code]).toEqual([409, 'NOT_CONFIGURED']);
    expect(tokensAt(other)).toEqual([]);

    expect((await save(f.pms.url)).status).toBe(200);
    expect((await admin('/api/settings/plex/libraries')).status).toBe(200);
    expect((await admin('/api/settings/plex/test', { method: 'POST', json: { url: f.pms.url } })).status).toBe(200);
    expect(f.pms.requests.at(-1)!.headers['x-plex-token']).toBe(f.serverToken);
  });

  it("a test asks plex.tv again before refusing: an address it lists now is used", async () => {
    const before = f.tv.servers;
    f.tv.servers = [{ ...before[0]!, uri: other.url }];
    try {
      const res = await admin('/api/settings/plex/test', { method: 'POST', json: { url: other.url } });
      expect(res.status).toBe(200);
      expect(tokensAt(other)).toEqual([f.serverToken]);
    } finally {
      f.tv.servers = before;
      other.requests.length = 0;
      // plex.tv's list is the old one again: the other host is refused once more.
      expect((await admin('/api/settings/plex/resources', { method: 'POST', json: {} })).status).toBe(200);
      expect((await admin('/api/settings/plex/test', { method: 'POST', json: { url: other.url } })).body.code).toBe('SECRET_REENTRY_REQUIRED');
      expect(tokensAt(other)).toEqual([]);
    }
  });

  it('connecting Plex again with the new address saved lets the token go there', async () => {
    expect((await save(other.url)).status).toBe(200);
    await connectPlex(server, f);
    expect((await admin('/api/settings/plex/libraries')).status).toBe(200);
    expect(tokensAt(other)).toEqual([f.serverToken]);
    // Back to the listed address for what follows.
    expect((await save(f.pms.url)).status).toBe(200);
  });
});

describe('sync', () => {
  it('needs a chosen library, then maps each Plex track to the library track with the same file', async () => {
    const none = await admin('/api/settings/plex/sync', { method: 'POST' });
    expect(none.status).toBe(409);
    expect(none.body.message).toMatch(/library/);
    await admin('/api/settings', { method: 'POST', json: { integrations: { plex: { librarySectionId: '3' } } } });
    const res = await admin('/api/settings/plex/sync', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, sectionId: '3', plexTracks: 4, matched: 3, unmatched: 1, syncedAt: server.clock.now() });
    const ids = server.ctx.db.prepare('SELECT t.id, t.title FROM library_tracks t ORDER BY t.title').all() as { id: number; title: string }[];
    const byTitle = new Map(ids.map((t) => [t.title, t.id]));
    const keys = plexTracks.ratingKeysFor(server.ctx.db, '3', [byTitle.get('Roads')!, byTitle.get('Glory Box')!, 999_999]);
    expect([...keys.entries()]).toEqual([
      [byTitle.get('Roads')!, '801'],
      [byTitle.get('Glory Box')!, '803'],
    ]);
    expect((await admin('/api/settings/plex/status')).body).toMatchObject({ librarySectionId: '3', server: { url: f.pms.url, name: 'Den', machineIdentifier: f.pms.machineIdentifier }, sync: { tracks: 4, matched: 3 } });
    expect((await admin('/api/settings/plex/libraries')).body.libraries.find((l: { key: string }) => l.key === '3').selected).toBe(true);
  });

  it('reads the library in pages', async () => {
    const pages = f.pms.requests.filter((r) => r.path === '/library/sections/3/all' && r.query.get('X-Plex-Container-Size') === '200');
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.every((p) => p.query.get('type') === '10')).toBe(true);
  });

  it('runs as a job of the plex-sync queue: calls at the same time share one job and its result, shown on the tasks screen', async () => {
    const jobs = () => server.ctx.db.prepare("SELECT id, status FROM jobs WHERE queue = 'plex-sync' ORDER BY id").all() as { id: number; status: string }[];
    const before = jobs().length;
    const [a, b] = await Promise.all([admin('/api/settings/plex/sync', { method: 'POST' }), admin('/api/settings/plex/sync', { method: 'POST' })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body).toEqual(a.body);
    expect(jobs().slice(before)).toEqual([{ id: expect.any(Number), status: 'done' }]);
    const tasks = await admin('/api/settings/tasks');
    expect(tasks.body.tasks.find((t: { name: string }) => t.name === 'plex-sync')).toMatchObject({ queue: 'plex-sync', schedule: 'on demand', lastStatus: 'succeeded' });
  });
});

describe('disconnect', () => {
  it('forgets the account and its server tokens', async () => {
    expect((await admin('/api/settings/plex/auth', { method: 'DELETE' })).body).toEqual({ success: true, connected: false });
    expect(plexAccount.get(server.ctx.db)).toBeUndefined();
    expect(plexServerTokens.get(server.ctx.db, f.pms.machineIdentifier)).toBeUndefined();
    expect((await admin('/api/settings/plex/libraries')).body.code).toBe('NOT_CONFIGURED');
  });

  it('no token ever appeared in an answer or a log line', () => {
    expect(seen.some((s) => s.includes('Plex account connected'))).toBe(true);
    for (const token of [f.ownerToken, f.serverToken]) expect(seen.filter((s) => s.includes(token))).toEqual([]);
  });
});
