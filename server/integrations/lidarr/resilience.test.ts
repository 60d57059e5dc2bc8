import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startLidarrFake, type LidarrFake } from '../../../test/fakes/lidarr/index.js';
import { IntegrationError } from '../errors.js';
import { LidarrClient, type LidarrClientOptions } from './client.js';

const apiKey = 'test-key';
let fake: LidarrFake;
const extraServers: Server[] = [];

beforeEach(async () => {
  fake = await startLidarrFake({ apiKey });
});
afterEach(async () => {
  await fake.close();
  await Promise.all(extraServers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

const clientFor = (options: Partial<LidarrClientOptions> = {}) =>
  new LidarrClient({ baseUrl: fake.url, apiKey, retryDelayMs: 10, ...options });

async function failure(call: Promise<unknown>): Promise<IntegrationError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(IntegrationError);
  return err as IntegrationError;
}

async function serve(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  extraServers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('retries', () => {
  it('retries a GET once after a single 5xx and then succeeds', async () => {
    fake.state.failNext(1, 503);
    expect((await clientFor().systemStatus()).appName).toBe('Lidarr');
    expect(fake.state.countOf('GET /system/status')).toBe(2);
  });

  it('gives up after the one retry with server_error', async () => {
    fake.state.failNext(2, 500);
    const err = await failure(clientFor().rootFolders());
    expect([err.kind, err.status, err.message]).toEqual(['server_error', 500, 'Lidarr failed on GET /rootfolder (500): Injected failure']);
    expect(fake.state.countOf('GET /rootFolder')).toBe(2);
  });

  it('does not repeat a POST that reached Lidarr', async () => {
    fake.state.failNext(1, 500);
    const err = await failure(clientFor().createTag('x'));
    expect(err.kind).toBe('server_error');
    expect(fake.state.countOf('POST /tag')).toBe(1);
  });

  it('says when Lidarr cannot reach its metadata server', async () => {
    fake.state.failNext(2, 503, JSON.stringify({ message: 'Search for "x" failed. Unable to communicate with api.lidarr.audio.' }));
    const err = await failure(clientFor().lookupArtists('x'));
    expect(err.message).toBe('Lidarr cannot reach its metadata server (api.lidarr.audio)');
  });

  it('maps 429 to rate_limited', async () => {
    fake.state.failNext(1, 429);
    expect((await failure(clientFor().tags())).kind).toBe('rate_limited');
  });
});

describe('circuit breaker', () => {
  it('opens after 3 failed calls, fails fast while open, and closes after the window on success', async () => {
    let now = 1_000_000;
    const client = clientFor({ breaker: { now: () => now } });
    fake.state.failNext(6, 500); // three calls, each with its retry
    for (let i = 0; i < 3; i++) expect((await failure(client.tags())).kind).toBe('server_error');
    expect(client.circuitOpen).toBe(true);

    const before = fake.state.requestCount;
    const started = Date.now();
    const refused = await failure(client.tags());
    expect([refused.kind, refused.message]).toEqual(['circuit_open', 'Lidarr failed repeatedly; not calling it again for 60 s']);
    expect(Date.now() - started).toBeLessThan(50);
    expect(fake.state.requestCount).toBe(before);

    now += 59_000;
    expect((await failure(client.tags())).kind).toBe('circuit_open');
    now += 1_000;
    expect(client.circuitOpen).toBe(false);
    expect(await client.tags()).toEqual([]);
    expect(client.circuitOpen).toBe(false);
  });

  it('reopens at once when the first call after the window fails', async () => {
    let now = 0;
    const client = clientFor({ breaker: { now: () => now } });
    fake.state.failNext(8, 500);
    for (let i = 0; i < 3; i++) await failure(client.tags());
    now += 60_000;
    expect((await failure(client.tags())).kind).toBe('server_error');
    expect(client.circuitOpen).toBe(true);
  });

  it('counts answers such as 404 as signs of life', async () => {
    const client = clientFor();
    for (let i = 0; i < 5; i++) expect((await failure(client.command(99))).kind).toBe('not_found');
    expect(client.circuitOpen).toBe(false);
  });

  it('lets testConnection through while open, and its success closes the breaker', async () => {
    let now = 0;
    const client = clientFor({ breaker: { now: () => now } });
    fake.state.failNext(6, 502);
    for (let i = 0; i < 3; i++) await failure(client.tags());
    expect(client.circuitOpen).toBe(true);
    expect((await client.testConnection()).ok).toBe(true);
    expect(client.circuitOpen).toBe(false);
  });
});

describe('network failures', () => {
  it('times out against a slow Lidarr within the timeout plus a small margin', async () => {
    fake.state.slow(3_000);
    const started = Date.now();
    const err = await failure(clientFor({ timeoutMs: 200 }).testConnection());
    const elapsed = Date.now() - started;
    expect(err.kind).toBe('timeout');
    expect(err.message).toBe(`Lidarr at ${fake.url}/api/v1/system/status timed out after 200 ms`);
    expect(elapsed).toBeGreaterThanOrEqual(195);
    expect(elapsed).toBeLessThan(500);
  });

  it('maps a refused connection to unreachable, retried once, and recovers after up()', async () => {
    const client = clientFor();
    await fake.state.down();
    const err = await failure(client.testConnection());
    expect([err.kind, err.message]).toEqual(['unreachable', `Lidarr at ${fake.url}/api/v1/system/status: connection refused`]);
    await fake.state.up();
    expect((await client.testConnection()).ok).toBe(true);
  });

  it('maps connections destroyed on arrival to unreachable', async () => {
    await fake.state.down('reset');
    const err = await failure(clientFor().rootFolders());
    expect(err.kind).toBe('unreachable');
    await fake.state.up();
    expect((await clientFor().rootFolders()).length).toBe(1);
  });

  it('maps an HTML page to wrong_url and says to check the URL base', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!DOCTYPE html><html><body>My router</body></html>');
    });
    const err = await failure(new LidarrClient({ baseUrl: url, apiKey, retryDelayMs: 10 }).testConnection());
    expect(err.kind).toBe('wrong_url');
    expect(err.message).toBe(
      `not Lidarr at this URL: ${url}/api/v1/system/status answered with a web page, not Lidarr's API (check the URL and its URL base)`,
    );
  });

  it('needs the URL base Lidarr is configured with', async () => {
    const based = await startLidarrFake({ apiKey, urlBase: '/lidarr' });
    try {
      const withoutBase = new LidarrClient({ baseUrl: `http://127.0.0.1:${based.port}`, apiKey });
      expect((await failure(withoutBase.testConnection())).kind).toBe('wrong_url');
      const withBase = new LidarrClient({ baseUrl: `http://127.0.0.1:${based.port}/lidarr/`, apiKey });
      expect((await withBase.testConnection()).ok).toBe(true);
    } finally {
      await based.close();
    }
  });

  it('refuses a JSON API that is not Lidarr', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ appName: 'Sonarr', version: '4.0.0' }));
    });
    const err = await failure(new LidarrClient({ baseUrl: url, apiKey }).testConnection());
    expect([err.kind, err.message]).toEqual(['wrong_url', 'not Lidarr at this URL: it is Sonarr (check the URL and port)']);
  });

  it("never quotes a body that is not one of Lidarr's own error shapes", async () => {
    const url = await serve((req, res) => {
      const status = req.url!.includes('/tag') ? 400 : req.url!.includes('/artist') ? 200 : 500;
      res.writeHead(status, { 'Content-Type': 'text/plain' }).end('SECRET-BODY from an internal page');
    });
    const client = new LidarrClient({ baseUrl: url, apiKey, retryDelayMs: 10 });
    const errors = await Promise.all([failure(client.rootFolders()), failure(client.createTag('x')), failure(client.artists())]);
    expect(errors.map((e) => [e.kind, e.message, e.details])).toEqual([
      ['server_error', 'Lidarr failed on GET /rootfolder (500)', undefined],
      ['bad_request', 'Lidarr refused POST /tag: request rejected (HTTP 400)', undefined],
      ['bad_response', 'lidarr answered HTTP 200 with a body that is not JSON (text/plain)', undefined],
    ]);
  });

  it('maps a JSON answer of the wrong shape to bad_response', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ not: 'a list' }));
    });
    expect((await failure(new LidarrClient({ baseUrl: url, apiKey }).artists())).kind).toBe('bad_response');
  });
});

describe('concurrency limit', () => {
  it('never has more than maxConcurrent requests in flight', async () => {
    fake.state.slow(30);
    const client = clientFor({ maxConcurrent: 3 });
    const results = await Promise.all(Array.from({ length: 20 }, () => client.tags()));
    expect(results.length).toBe(20);
    expect(fake.state.maxInFlight).toBe(3);
  });

  it('shares a default limit of 8 across all callers', async () => {
    fake.state.slow(30);
    const client = clientFor();
    await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? client.tags() : client.rootFolders())));
    expect(fake.state.maxInFlight).toBe(8);
  });
});
