import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startLidarrFake, type LidarrFake } from '../fakes/lidarr/index.js';
import { startNavidromeFake, type NavidromeFake } from '../fakes/navidrome/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Connection tests of integrations reach any URL a user types: pin what they may and may not do. */

const MARKER = 'MARKER-7f3a9c';

interface Recorder {
  url: string;
  requests: Array<{ url: string; headers: http.IncomingHttpHeaders }>;
}
const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A real server on 127.0.0.1:0 that records the path, query and headers of every request. */
async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Recorder> {
  const requests: Recorder['requests'] = [];
  const server = http.createServer((req, res) => {
    requests.push({ url: req.url!, headers: req.headers });
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const answering = (status: number, type: string, body: string) => serve((_req, res) => res.writeHead(status, { 'content-type': type }).end(body));

describe('onboarding connection tests against arbitrary servers', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      onboard: false,
      env: { ALLOW_PRIVATE_TARGETS: '127.0.0.1,169.254.169.254,fd00:ec2::254,metadata.google.internal' },
    });
  });
  afterAll(async () => {
    await server.stop();
  });
  const post = async (pathname: string, json: unknown) => {
    const res = await server.api(pathname, { method: 'POST', json });
    const text = await res.text();
    return { status: res.status, text, body: JSON.parse(text) as { error: string; code?: string; message?: string } };
  };

  const bodies: Array<[string, number, string, string]> = [
    ['an HTML page', 200, 'text/html', `<html><body>${MARKER}</body></html>`],
    ['plain text', 200, 'text/plain', `${MARKER} internal admin console`],
    ['JSON that is not Lidarr', 200, 'application/json', JSON.stringify({ appName: MARKER, version: MARKER, instanceName: MARKER })],
    ['a JSON list', 200, 'application/json', JSON.stringify([{ secret: MARKER }])],
    ['a 400 with a message', 400, 'application/json', JSON.stringify({ message: MARKER })],
    ['a 400 shaped like validation failures', 400, 'application/json', JSON.stringify([{ propertyName: 'x', errorMessage: MARKER }])],
    ['a 404 page', 404, 'text/plain', MARKER],
    ['a 500 with a message', 500, 'application/json', JSON.stringify({ message: MARKER, description: MARKER })],
    ['a 502 text', 502, 'text/plain', MARKER],
  ];

  it.each(bodies)('never repeats any part of %s in a Lidarr or Navidrome test', async (_what, status, type, body) => {
    const target = await answering(status, type, body);
    const lidarr = await post('/api/onboarding/lidarr/test', { url: target.url, apiKey: 'k' });
    const navidrome = await post('/api/onboarding/navidrome/test', { url: target.url, username: 'u', password: 'p' });
    const profiles = await post('/api/onboarding/lidarr/profiles', { url: target.url, apiKey: 'k' });
    for (const answer of [lidarr, navidrome, profiles]) {
      expect(answer.status).toBe(502);
      expect(answer.text).not.toContain(MARKER);
      expect(answer.body.message).toBeTruthy();
    }
    expect(target.requests.length).toBeGreaterThanOrEqual(3);
  });

  it('names the cause: HTTP status, not Lidarr, a web page', async () => {
    const status = await answering(500, 'application/json', JSON.stringify({ message: MARKER }));
    expect((await post('/api/onboarding/lidarr/test', { url: status.url, apiKey: 'k' })).body).toEqual({
      error: 'Upstream unavailable',
      code: 'UPSTREAM_UNAVAILABLE',
      message: 'lidarr: Lidarr failed on GET /system/status (HTTP 500)',
    });
    const notFound = await answering(404, 'text/plain', MARKER);
    expect((await post('/api/onboarding/lidarr/test', { url: notFound.url, apiKey: 'k' })).body.message).toBe(
      `lidarr: not Lidarr at this URL: ${notFound.url}/api/v1/system/status answered HTTP 404 (check the URL and its URL base)`,
    );
    const other = await answering(200, 'application/json', JSON.stringify({ appName: MARKER, version: '1' }));
    expect((await post('/api/onboarding/lidarr/test', { url: other.url, apiKey: 'k' })).body.message).toBe(
      'lidarr: not Lidarr at this URL: the server does not say it is Lidarr (check the URL and port)',
    );
    const text = await answering(200, 'text/plain', MARKER);
    expect((await post('/api/onboarding/navidrome/test', { url: text.url, username: 'u', password: 'p' })).body.message).toBe(
      'navidrome: navidrome answered HTTP 200 with a body that is not JSON (text/plain)',
    );
  });

  it('refuses a redirect to another host, naming it, and the other host receives no request', async () => {
    const elsewhere = await answering(200, 'application/json', JSON.stringify({ appName: 'Lidarr', version: '2', instanceName: 'x' }));
    const port = new URL(elsewhere.url).port;
    for (const target of [elsewhere.url, `http://localhost:${port}`]) {
      const redirecting = await serve((req, res) => res.writeHead(302, { location: `${target}${req.url}` }).end());
      const lidarr = await post('/api/onboarding/lidarr/test', { url: redirecting.url, apiKey: 'the-key' });
      expect(lidarr.status).toBe(502);
      expect(lidarr.body.message).toBe(
        `lidarr: Lidarr: ${redirecting.url}/api/v1/system/status redirects to another host (${target}); only redirects within ${redirecting.url} are followed`,
      );
      const navidrome = await post('/api/onboarding/navidrome/test', { url: redirecting.url, username: 'u', password: 'p' });
      expect(navidrome.body.message).toContain(`redirects to another host (${target})`);
      expect(redirecting.requests).toHaveLength(2);
    }
    expect(elsewhere.requests).toEqual([]);
  });

  it('refuses link-local and cloud metadata addresses although the allow-list names them', async () => {
    for (const url of ['http://169.254.169.254', 'http://[fd00:ec2::254]', 'http://169.254.10.10:8686']) {
      const lidarr = await post('/api/onboarding/lidarr/test', { url, apiKey: 'k' });
      expect(lidarr.status).toBe(400);
      expect(lidarr.body).toMatchObject({ error: 'Address refused', code: 'TARGET_REFUSED' });
      expect(lidarr.body.message).toMatch(/is a link-local or cloud metadata address, which is never allowed$/);
      const navidrome = await post('/api/onboarding/navidrome/test', { url, username: 'u', password: 'p' });
      expect([navidrome.status, navidrome.body.code]).toEqual([400, 'TARGET_REFUSED']);
    }
  });

  it('keeps working against a real Lidarr on the allow-listed 127.0.0.1', async () => {
    const fake = await startLidarrFake();
    try {
      expect((await post('/api/onboarding/lidarr/test', { url: fake.url, apiKey: fake.apiKey })).status).toBe(200);
      const profiles = await post('/api/onboarding/lidarr/profiles', { url: fake.url, apiKey: fake.apiKey });
      expect(profiles.body).toEqual([
        { id: 1, name: 'Any' },
        { id: 2, name: 'Lossless' },
        { id: 3, name: 'Standard' },
      ]);
    } finally {
      await fake.close();
    }
  });
});

describe('stored secrets stay with the address they were saved for', () => {
  let lidarr: LidarrFake;
  let navidrome: NavidromeFake;
  let server: TestServer;
  beforeAll(async () => {
    lidarr = await startLidarrFake();
    navidrome = await startNavidromeFake({ username: 'nd', password: 'nd-secret' });
    server = await startTestServer({
      onboarding: { lidarr: { url: lidarr.url, apiKey: lidarr.apiKey }, navidrome: { url: navidrome.url, username: 'nd', password: 'nd-secret' } },
    });
  });
  afterAll(async () => {
    await server.stop();
    await lidarr.close();
    await navidrome.close();
  });
  const call = async (method: string, pathname: string, json?: unknown) => {
    const res = await server.api(pathname, { method, token: server.admin.token, ...(json !== undefined && { json }) });
    return { status: res.status, body: (await res.json()) as any };
  };
  /** A server that answers like Lidarr and Navidrome and records what it was sent. */
  const impostor = () =>
    serve((req, res) => {
      const body = req.url!.startsWith('/rest/')
        ? { 'subsonic-response': { status: 'ok', version: '1.16.1', type: 'navidrome', serverVersion: '0.53.3' } }
        : { appName: 'Lidarr', version: '2.14.5.4836', instanceName: 'Impostor' };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  const sentKeys = (r: Recorder) => r.requests.map((q) => q.headers['x-api-key']);

  it('a Lidarr test with a new host and the masked key answers 400 and sends nothing there', async () => {
    const other = await impostor();
    for (const json of [{ url: other.url, apiKey: '********' }, { url: other.url }]) {
      const test = await call('POST', '/api/settings/lidarr/test', json);
      expect(test.status).toBe(400);
      expect(test.body).toMatchObject({ error: 'Invalid request', code: 'SECRET_REENTRY_REQUIRED' });
      expect(test.body.message).toBe(
        `integrations.lidarr.apiKey: the URL now points at ${other.url} instead of ${lidarr.url}; ` +
          'enter the API key again (a stored API key is only sent to the address it was saved for)',
      );
    }
    expect(other.requests).toEqual([]);
    const typed = await call('POST', '/api/settings/lidarr/test', { url: other.url, apiKey: 'typed-key' });
    expect(typed.body.message).toBe('Connected to Impostor 2.14.5.4836');
    expect(sentKeys(other)).toEqual(['typed-key']);
  });

  it('a Lidarr test on the same host with the masked key uses the stored key', async () => {
    const before = lidarr.state.countOf('GET /system/status');
    for (const json of [{ url: `${lidarr.url}/`, apiKey: '********' }, { apiKey: '********' }, {}]) {
      const test = await call('POST', '/api/settings/lidarr/test', json);
      expect([test.status, test.body.success]).toEqual([200, true]);
    }
    expect(lidarr.state.countOf('GET /system/status')).toBe(before + 3);
    expect((await call('GET', '/api/settings/lidarr/test')).status).toBe(200);
  });

  it('a Navidrome test with a new host and the masked password answers 400 and sends nothing there', async () => {
    const other = await impostor();
    const port = new URL(other.url).port;
    for (const url of [other.url, `http://localhost:${port}`]) {
      const test = await call('POST', '/api/settings/navidrome/test', { url, username: 'nd', password: '********' });
      expect([test.status, test.body.code]).toEqual([400, 'SECRET_REENTRY_REQUIRED']);
      expect(test.body.message).toContain('enter the password again');
    }
    expect(other.requests).toEqual([]);
    const same = await call('POST', '/api/settings/navidrome/test', { url: navidrome.url, username: 'nd', password: '********' });
    expect(same.status).toBe(200);
  });

  it('refuses to save a new host with the masked or omitted secret, and stores nothing', async () => {
    const other = await impostor();
    const before = server.ctx.settings.get();
    const view = (await call('GET', '/api/settings')).body;
    for (const lidarrBlock of [{ ...view.integrations.lidarr, url: other.url }, { url: other.url }]) {
      const saved = await call('POST', '/api/settings', { integrations: { lidarr: lidarrBlock } });
      expect(saved.status).toBe(400);
      expect(saved.body).toMatchObject({ code: 'SECRET_REENTRY_REQUIRED', details: [{ path: 'integrations.lidarr.apiKey' }] });
    }
    const nd = await call('POST', '/api/settings', { integrations: { navidrome: { url: `${other.url}/navidrome`, password: '********' } } });
    expect([nd.status, nd.body.details[0].path]).toEqual([400, 'integrations.navidrome.password']);
    expect(server.ctx.settings.get()).toEqual(before);
    // Clearing the URL keeps the key stored, but a later address still needs it typed again.
    expect((await call('POST', '/api/settings', { integrations: { lidarr: { url: '' } } })).status).toBe(200);
    expect((await call('POST', '/api/settings', { integrations: { lidarr: { url: other.url } } })).status).toBe(400);
    expect((await call('POST', '/api/settings', { integrations: { lidarr: { url: lidarr.url } } })).status).toBe(400);
    expect((await call('POST', '/api/settings', { integrations: { lidarr: { url: lidarr.url, apiKey: lidarr.apiKey } } })).status).toBe(200);
    expect(other.requests).toEqual([]);
  });

  it('refuses to save a literal link-local or metadata address (hexadecimal spellings too)', async () => {
    for (const url of ['http://169.254.169.254/latest', 'http://[fd00:ec2::254]', 'http://0xa9fea9fe']) {
      const saved = await call('POST', '/api/settings', { integrations: { navidrome: { url, password: 'typed' } } });
      expect([saved.status, saved.body.message]).toEqual([400, 'Navidrome address: is a link-local or cloud metadata address, which is never allowed']);
      expect(saved.body.details[0].path).toBe('integrations.navidrome.url');
    }
    expect(server.ctx.settings.get().integrations.navidrome.url).toBe(navidrome.url);
  });

  it('saves a new host with a typed secret, and the same host (another path) with the masked one', async () => {
    const view = (await call('GET', '/api/settings')).body;
    const samePath = await call('POST', '/api/settings', { integrations: { lidarr: { ...view.integrations.lidarr, url: `${lidarr.url}/` } } });
    expect(samePath.status).toBe(200);
    expect(server.ctx.settings.get().integrations.lidarr.apiKey).toBe(lidarr.apiKey);
    const other = await impostor();
    const moved = await call('POST', '/api/settings', { integrations: { lidarr: { url: other.url, apiKey: 'another-key' } } });
    expect(moved.status).toBe(200);
    expect((await call('GET', '/api/settings/lidarr/test')).body.instanceName).toBe('Impostor');
    // Every request there carries the typed key: the test, and whatever the new address starts (the
    // Lidarr index a changed Lidarr address queues may already be asking for its artists).
    expect(sentKeys(other)).toContain('another-key');
    expect(new Set(sentKeys(other))).toEqual(new Set(['another-key']));
    await call('POST', '/api/settings', { integrations: { lidarr: { url: lidarr.url, apiKey: lidarr.apiKey } } });
  });
});
