import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrobbleDeliveries } from '../../server/db/scrobbling.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createUser, json, scrobbleEnv, startScrobbleFakes, until, type ScrobbleFakes } from './helpers.js';

/**
 * Issue 22 §3: the Koito address is typed by any user, so it must not let an account make the server
 * probe its own loopback ports or the LAN. Without an allow-list (neither ALLOW_PRIVATE_TARGETS nor
 * the security.allowPrivateTargets setting), only administrators may point at private addresses; the
 * answer to anyone else is the same whether the address was refused, closed or answered.
 */
let fakes: ScrobbleFakes;
let server: TestServer;
let internal: http.Server;
let internalPort: number;
let closedPort: number;
const internalHits: { path: string; authorization: string | undefined }[] = [];
let ann: string;
let annId: number;

beforeAll(async () => {
  fakes = await startScrobbleFakes();
  server = await startTestServer({ env: { ...scrobbleEnv(fakes), ALLOW_PRIVATE_TARGETS: '' } });
  // Something on loopback nobody outside should reach.
  internal = http.createServer((req, res) => {
    internalHits.push({ path: req.url ?? '', authorization: req.headers.authorization });
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"valid":true,"user_name":"internal"}');
  });
  await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
  internalPort = (internal.address() as AddressInfo).port;
  // A port that was free a moment ago: nothing listens there.
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  ann = await createUser(server, 'ann');
  annId = (server.ctx.db.prepare('SELECT id FROM users WHERE username = ?').get('ann') as { id: number }).id;
});
afterAll(async () => {
  await server?.stop();
  await fakes?.close();
  await new Promise((resolve) => internal?.close(resolve));
});

const link = (token: string, url: string, key = 'koito-key') => server.api('/api/scrobbling/koito/link', { method: 'PUT', token, json: { url, token: key } });
const allowList = async (hosts: string[]) => {
  const res = await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { security: { allowPrivateTargets: hosts } } });
  expect(res.status).toBe(200);
};

describe('a Koito address entered by someone other than an administrator', () => {
  it('never reaches loopback, whatever the spelling, and the answer does not tell open from closed ports', async () => {
    const spellings = [
      `http://127.0.0.1:${internalPort}/internal/admin/delete?x=`,
      `http://localhost:${internalPort}/internal/admin/delete?x=`,
      `http://[::ffff:127.0.0.1]:${internalPort}/internal/admin/delete?x=`,
      `http://2130706433:${internalPort}/internal/admin/delete?x=`,
      `http://0x7f.1:${internalPort}/internal/admin/delete?x=`,
      `http://0.0.0.0:${internalPort}/internal/admin/delete?x=`,
    ];
    const answers: unknown[] = [];
    for (const url of spellings) {
      const res = await link(ann, url);
      expect(res.status, url).toBe(400);
      answers.push(await json(res));
    }
    const closed = await link(ann, `http://127.0.0.1:${closedPort}/`);
    expect(closed.status).toBe(400);
    const lan = await link(ann, 'http://10.255.255.1:4110/');
    expect(lan.status).toBe(400);
    answers.push(await json(closed), await json(lan));
    // One neutral answer for all of them.
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]).toMatchObject({ code: 'KOITO_UNREACHABLE' });
    expect((answers[0] as { message: string }).message).toMatch(/^Koito could not be reached at that address/);
    expect(internalHits).toEqual([]);
    expect((await json(await server.api('/api/scrobbling/status', { token: ann }))).koito).toMatchObject({ linked: false });
  });

  it('an administrator may link a Koito on loopback or the LAN', async () => {
    fakes.koito.apiKeys.set('koito-admin', 'boss');
    const res = await link(server.admin.token, fakes.koito.url, 'koito-admin');
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ linked: true, username: 'boss' });
    // An administrator still learns why a target is refused.
    const meta = await link(server.admin.token, 'http://169.254.169.254/', 'koito-admin');
    expect(meta.status).toBe(400);
    expect((await json(meta)).code).toBe('TARGET_REFUSED');
  });

  it('works once an administrator allows the host (security.allowPrivateTargets), and deliveries stop when the host is taken off', async () => {
    fakes.koito.apiKeys.set('koito-ann', 'ann_k');
    expect((await link(ann, fakes.koito.url, 'koito-ann')).status).toBe(400);
    await allowList(['127.0.0.1']);
    const res = await link(ann, fakes.koito.url, 'koito-ann');
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ linked: true, username: 'ann_k' });
    // The host is taken off the list: what was linked is not delivered there any more.
    await allowList([]);
    const play = await server.api('/api/play-events', { method: 'POST', token: ann, json: { title: 'Unsent', artist: 'Nobody', durationMs: 200_000 } });
    expect(play.status).toBe(201);
    const row = await until('the Koito delivery to fail', () => scrobbleDeliveries.list(server.ctx.db, { userId: annId }).find((r) => r.service === 'koito' && r.status === 'failed'));
    expect(row.lastError).toMatch(/private or loopback/);
    expect(fakes.koito.submissions.filter((s) => s.user === 'ann_k')).toEqual([]);
  });
});

describe('the allow-list setting', () => {
  it('takes host names and addresses, not URLs', async () => {
    const bad = await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { security: { allowPrivateTargets: ['http://koito.lan:4110'] } } });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error).toBeTruthy();
    await allowList(['koito.lan', '192.168.1.20', '[fd00::5]']);
    expect((await json(await server.api('/api/settings', { token: server.admin.token }))).security.allowPrivateTargets).toEqual(['koito.lan', '192.168.1.20', '[fd00::5]']);
    await allowList([]);
  });
});
