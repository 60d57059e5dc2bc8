import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plexLinks } from '../../server/db/plex.js';
import { plexTokenForUser } from '../../server/domain/plex/connection.js';
import { plexServerForUser } from '../../server/domain/plex/identities.js';
import { decrypt } from '../../server/secrets.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { body, connectPlex, createUser, plexEnv, shareDen, startPlexFakes, type PlexFakes } from './helpers.js';

/** Each user's Plex link (`/api/users/me/plex-link/*`) and an administrator's Plex Home links (api.md §4.12). */

let f: PlexFakes;
let server: TestServer;
let ann: { id: number; token: string };
let bob: { id: number; token: string };
let annPlexToken: string;
const answers: string[] = [];

async function call(p: string, token: string | undefined, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}) {
  const res = await server.api(p, { ...init, ...(token && { token }) });
  const text = await res.text();
  answers.push(text);
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  f = await startPlexFakes();
  server = await startTestServer({ env: plexEnv(f) });
  ann = await createUser(server, 'ann');
  bob = await createUser(server, 'bob');
  annPlexToken = f.tv.addAccount({ username: 'ann_plays', title: 'Ann' });
  f.tv.homeUsers = [
    { id: 31, uuid: 'kid-uuid', title: 'Kid', username: '', restricted: true, admin: false, pin: '4321', token: 'kid-home-token-9a' },
    { id: 32, uuid: 'gran-uuid', title: 'Gran', username: 'gran', restricted: true, admin: false, pin: null, token: 'gran-home-token-7c' },
  ];
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await f?.close();
});

describe('my Plex link', () => {
  it('starts unlinked', async () => {
    expect((await call('/api/users/me/plex-link/status', ann.token)).body).toEqual({ linked: false, kind: null, username: null, title: null, linkedAt: null, lastError: null });
  });

  it('links with a PIN the user approves; the token is stored encrypted and never answered', async () => {
    const pin = (await call('/api/users/me/plex-link/oauth/pin', ann.token, { method: 'POST', json: {} })).body;
    expect(pin.authUrl).toContain(`code=${pin.code}`);
    expect((await call('/api/users/me/plex-link/oauth/complete', ann.token, { method: 'POST', json: { pinId: pin.pinId, code: pin.code } })).body).toMatchObject({ pending: true, linked: false });
    // Bob cannot complete Ann's PIN, approved or not.
    f.tv.approve(pin.pinId, annPlexToken);
    const stolen = await call('/api/users/me/plex-link/oauth/complete', bob.token, { method: 'POST', json: { pinId: pin.pinId } });
    expect(stolen.status).toBe(404);
    expect(stolen.body.error).toBe('Plex PIN not found');
    const done = await call('/api/users/me/plex-link/oauth/complete', ann.token, { method: 'POST', json: { pinId: pin.pinId, code: pin.code } });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ pending: false, linked: true, expired: false, username: 'ann_plays', link: { linked: true, kind: 'oauth', username: 'ann_plays', title: 'Ann' } });
    const status = (await call('/api/users/me/plex-link/status', ann.token)).body;
    expect(status).toEqual({ linked: true, kind: 'oauth', username: 'ann_plays', title: 'Ann', linkedAt: server.clock.now(), lastError: null });
    const row = plexLinks.get(server.ctx.db, ann.id)!;
    expect(row.tokenEnc).not.toContain(annPlexToken);
    expect(decrypt(server.ctx.secrets.encryptionKey, row.tokenEnc)).toBe(annPlexToken);
    expect(plexTokenForUser(server.ctx, ann.id)).toBe(annPlexToken);
    expect((await call('/api/users/me/plex-link/status', bob.token)).body.linked).toBe(false);
  });

  it('an expired PIN answers expired and links nothing', async () => {
    const pin = (await call('/api/users/me/plex-link/oauth/pin', bob.token, { method: 'POST' })).body;
    f.tv.expire(pin.pinId);
    expect((await call('/api/users/me/plex-link/oauth/complete', bob.token, { method: 'POST', json: { pinId: pin.pinId } })).body).toMatchObject({ expired: true, linked: false, pending: false });
    expect(plexLinks.get(server.ctx.db, bob.id)).toBeUndefined();
  });

  it('the neutral spelling is the same route, and unlinking removes the link', async () => {
    expect((await call('/api/users/me/mediaserver-link/status', ann.token)).body.username).toBe('ann_plays');
    expect((await call('/api/users/me/plex-link', ann.token, { method: 'DELETE' })).body).toEqual({ success: true, linked: false });
    expect((await call('/api/users/me/plex-link/status', ann.token)).body.linked).toBe(false);
    expect(plexLinks.get(server.ctx.db, ann.id)).toBeUndefined();
  });

  it('the API key gets 403 "User account required" on every route of the current user', async () => {
    const headers = { 'x-api-key': server.apiKey };
    const calls: [string, string, unknown?][] = [
      ['GET', '/api/users/me/plex-link/status'],
      ['POST', '/api/users/me/plex-link/oauth/pin', {}],
      ['POST', '/api/users/me/plex-link/oauth/complete', { pinId: '1' }],
      ['DELETE', '/api/users/me/plex-link'],
    ];
    for (const [method, p, json] of calls) {
      const res = await call(p, undefined, { method, headers, ...(json !== undefined && { json }) });
      expect(res.status, `${method} ${p}`).toBe(403);
      expect(res.body.error).toBe('User account required');
    }
    expect((await call('/api/users/me/mediaserver-link/status', undefined, { headers })).status).toBe(403);
  });
});

describe('Plex Home links (administrator)', () => {
  it('need the server Plex account first', async () => {
    const res = await call('/api/users/plex-link/home-users', server.admin.token);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('NOT_CONFIGURED');
  });

  it('are for administrators only', async () => {
    expect((await call('/api/users/plex-link/home-users', ann.token)).status).toBe(403);
    expect((await call(`/api/users/${bob.id}/plex-link/managed`, ann.token, { method: 'POST', json: { homeUserId: '32' } })).status).toBe(403);
    expect((await call(`/api/users/${bob.id}/plex-link`, ann.token, { method: 'DELETE' })).status).toBe(403);
  });

  it('lists the home users, links a managed user to a Tonearm user with its PIN, and shows who is linked', async () => {
    await connectPlex(server, f);
    const listed = (await call('/api/users/plex-link/home-users', server.admin.token)).body.users;
    expect(listed.map((u: { id: string; title: string; restricted: boolean; protected: boolean; linkedUserId: number | null }) => [u.id, u.title, u.restricted, u.protected, u.linkedUserId])).toEqual([
      ['31', 'Kid', true, true, null],
      ['32', 'Gran', true, false, null],
    ]);

    const noPin = await call(`/api/users/${bob.id}/plex-link/managed`, server.admin.token, { method: 'POST', json: { homeUserId: '31' } });
    expect(noPin.status).toBe(400);
    expect(noPin.body.code).toBe('PLEX_PIN_REQUIRED');
    const wrongPin = await call(`/api/users/${bob.id}/plex-link/managed`, server.admin.token, { method: 'POST', json: { homeUserId: '31', pin: '0000' } });
    expect(wrongPin.status).toBe(400);
    expect(wrongPin.body.code).toBe('PLEX_PIN_INVALID');

    const linked = await call(`/api/users/${bob.id}/plex-link/managed`, server.admin.token, { method: 'POST', json: { homeUserId: '31', pin: '4321' } });
    expect(linked.status).toBe(200);
    expect(linked.body).toEqual({ linked: true, kind: 'managed', username: 'Kid', title: 'Kid', linkedAt: server.clock.now(), lastError: null });
    expect(plexTokenForUser(server.ctx, bob.id)).toBe('kid-home-token-9a');
    expect(plexLinks.get(server.ctx.db, bob.id)!.linkedBy).toBe(server.ctx.users.findByUsername('admin')!.id);
    expect((await call('/api/users/me/plex-link/status', bob.token)).body).toMatchObject({ linked: true, kind: 'managed', title: 'Kid' });
    const after = (await call('/api/users/plex-link/home-users', server.admin.token)).body.users;
    expect(after.find((u: { id: string }) => u.id === '31').linkedUserId).toBe(bob.id);
  });

  it('links through the legacy switch route (XML) when plex.tv has no v2 one', async () => {
    f.tv.legacySwitchOnly = true;
    try {
      const res = await call(`/api/users/${ann.id}/plex-link/managed`, server.admin.token, { method: 'POST', json: { homeUserId: 32 } });
      expect(res.body).toMatchObject({ linked: true, kind: 'managed', username: 'gran' });
      expect(plexTokenForUser(server.ctx, ann.id)).toBe('gran-home-token-7c');
    } finally {
      f.tv.legacySwitchOnly = false;
    }
  });

  it('unknown users and home users are 404 with the record named', async () => {
    const noUser = await call('/api/users/9999/plex-link/managed', server.admin.token, { method: 'POST', json: { homeUserId: '32' } });
    expect([noUser.status, noUser.body.error]).toEqual([404, 'User not found']);
    const noHome = await call(`/api/users/${bob.id}/plex-link/managed`, server.admin.token, { method: 'POST', json: { homeUserId: '77' } });
    expect([noHome.status, noHome.body.error]).toEqual([404, 'Plex home user not found']);
  });

  it("a user's client uses their own server token (from plex.tv's resources for that user) on the configured server", async () => {
    // The server is chosen from plex.tv's list (whose connections are where tokens may go).
    expect((await call('/api/settings/plex/resources', server.admin.token, { method: 'POST', json: {} })).status).toBe(200);
    await call('/api/settings', server.admin.token, { method: 'POST', json: { integrations: { plex: { url: f.pms.url, machineIdentifier: f.pms.machineIdentifier } } } });
    // Not shared with Kid yet: plex.tv does not list the server to Kid's token.
    await expect(plexServerForUser(server.ctx, bob.id)).rejects.toThrow(/not shared/);
    expect(plexLinks.get(server.ctx.db, bob.id)!.lastError).toMatch(/not shared/);
    const kidServerToken = shareDen(f, 'kid-home-token-9a', 'kid');
    const forBob = (await plexServerForUser(server.ctx, bob.id))!;
    expect(forBob.machineIdentifier).toBe(f.pms.machineIdentifier);
    await forBob.client.playlists();
    expect(f.pms.requests.at(-1)!.headers['x-plex-token']).toBe(kidServerToken);
    expect(plexLinks.get(server.ctx.db, bob.id)!.lastError).toBeNull();
    expect(await plexServerForUser(server.ctx, 9999)).toBeNull();
  });

  it('an administrator removes a managed link', async () => {
    expect((await call(`/api/users/${bob.id}/plex-link`, server.admin.token, { method: 'DELETE' })).body).toEqual({ success: true, linked: false });
    expect(plexLinks.get(server.ctx.db, bob.id)).toBeUndefined();
    expect((await call('/api/users/9999/plex-link', server.admin.token, { method: 'DELETE' })).status).toBe(404);
  });

  it('every Plex route is documented in /api/openapi.json', async () => {
    const doc = (await call('/api/openapi.json', server.admin.token)).body;
    const paths = Object.keys(doc.paths).filter((p) => p.includes('plex'));
    expect(paths.length).toBe(16);
    expect(paths).toContain('/api/users/me/plex-link/oauth/complete');
  });

  it('no token appeared in any answer', () => {
    for (const token of [f.ownerToken, annPlexToken, 'kid-home-token-9a', 'gran-home-token-7c']) expect(answers.filter((a) => a.includes(token))).toEqual([]);
  });
});
