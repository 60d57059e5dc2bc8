import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
afterEach(async () => {
  await server?.stop();
});

const json = async (res: Response) => (await res.json()) as Record<string, any>;

describe('cross-cutting HTTP rules', () => {
  it('answers unknown /api paths and GET /api/artists with exactly {"error":"Not found"}', async () => {
    server = await startTestServer();
    for (const p of ['/api/nope', '/api/artists', '/api/users/1/whatever']) {
      const res = await server.api(p, { token: server.admin.token });
      expect(res.status).toBe(404);
      expect(await res.text()).toBe('{"error":"Not found"}');
    }
  });

  it('names the missing record when a route exists but finds nothing, never the catch-all body', async () => {
    server = await startTestServer();
    const cases: [string, string, string][] = [
      ['GET', '/api/library/artists/0f2c3c1e-0000-4000-8000-000000000000', 'Artist not found'],
      ['DELETE', '/api/requests/album/424242', 'Album request not found'],
      ['PATCH', '/api/users/424242', 'User not found'],
      ['DELETE', '/api/users/424242', 'User not found'],
    ];
    for (const [method, p, error] of cases) {
      const res = await server.api(p, { method, token: server.admin.token, ...(method === 'PATCH' && { json: { role: 'user' } }) });
      expect(res.status, `${method} ${p}`).toBe(404);
      const body = await json(res);
      expect(body.error, `${method} ${p}`).toBe(error);
    }
  });

  it('redirects /api/weekly-flow/* to /api/playlists/* with 308, keeping the query', async () => {
    server = await startTestServer();
    const res = await server.api('/api/weekly-flow/status?x=1&y=%C3%A9', { redirect: 'manual' });
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe('/api/playlists/status?x=1&y=%C3%A9');
    const root = await server.api('/api/weekly-flow', { redirect: 'manual' });
    expect(root.headers.get('location')).toBe('/api/playlists');
  });

  it('rejects bad JSON with 400 and oversized bodies with 413, both as JSON', async () => {
    server = await startTestServer();
    const bad = await server.api('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username":' });
    expect(bad.status).toBe(400);
    expect(await json(bad)).toEqual({ error: 'Invalid request', code: 'INVALID_JSON', message: 'Request body is not valid JSON' });
    const big = await server.api('/api/settings', {
      method: 'POST',
      token: server.admin.token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(5 * 1024 * 1024 + 10) }),
    });
    expect(big.status).toBe(413);
    expect(await json(big)).toEqual({ error: 'Payload too large', code: 'PAYLOAD_TOO_LARGE', message: 'Request body exceeds limit (5mb)' });
  });

  it('reports zod validation errors with VALIDATION_ERROR and the failing field', async () => {
    server = await startTestServer();
    const res = await server.api('/api/users', { method: 'POST', token: server.admin.token, json: { username: 'x', password: 'long-enough', role: 'king' } });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error).toBe('Invalid request');
    expect(body.code).toBe('VALIDATION_ERROR');
    expect(body.message).toMatch(/^role: /);
  });

  it('limits requests per client with JSON 429, Retry-After and RateLimit headers', async () => {
    server = await startTestServer({ env: { RATE_LIMIT_MAX: '30', RATE_LIMIT_WINDOW_MS: '60000' } });
    // onboarding and login in the helper used some of the budget
    let last: Response | undefined;
    for (let i = 0; i < 40; i++) {
      last = await server.api('/api/health/live');
      if (last.status === 429) break;
    }
    expect(last!.status).toBe(429);
    expect(await json(last!)).toMatchObject({ error: 'Too many requests', code: 'RATE_LIMITED' });
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last!.headers.get('ratelimit-policy')).toBe('30;w=60');
    expect(last!.headers.get('ratelimit')).toMatch(/limit=30, remaining=0, reset=\d+/);
  });

  it('allows CORS preflight from configured origins only, without X-Api-Key', async () => {
    server = await startTestServer({ env: { CORS_ORIGIN: 'http://dash.lan:8080' } });
    const ok = await server.api('/api/health', {
      method: 'OPTIONS',
      headers: { origin: 'http://dash.lan:8080', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://dash.lan:8080');
    expect(ok.headers.get('access-control-allow-headers')).toBe('Content-Type, Authorization');
    const refused = await server.api('/api/health', {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    const simple = await server.api('/api/health/live', { headers: { origin: 'http://evil.example' } });
    expect(simple.headers.get('access-control-allow-origin')).toBeNull();

    const fromSettings = await server.api('/api/settings', {
      method: 'POST',
      token: server.admin.token,
      json: { security: { corsOrigins: ['http://other.lan'] } },
    });
    expect(fromSettings.status).toBe(200);
    const now = await server.api('/api/health/live', { headers: { origin: 'http://other.lan' } });
    expect(now.headers.get('access-control-allow-origin')).toBe('http://other.lan');
  });

  it('opens /rest to browser players without any CORS setting', async () => {
    server = await startTestServer();
    const pre = await server.api('/rest/ping.view', { method: 'OPTIONS', headers: { origin: 'http://player.lan', 'access-control-request-method': 'GET' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('sends security headers without forcing https on a LAN', async () => {
    server = await startTestServer();
    const res = await server.api('/');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('strict-transport-security')).toBeNull();
  });

  it('serves neutral-name aliases with the same handler as the real names', async () => {
    server = await startTestServer();
    const real = await server.api('/api/users/me/lidarr-preferences', { token: server.admin.token });
    const alias = await server.api('/api/users/me/libmgr-preferences', { token: server.admin.token });
    expect(alias.status).toBe(200);
    expect(await json(alias)).toEqual(await json(real));
    const patched = await server.api('/api/users/me/libmgr-preferences', { method: 'PATCH', token: server.admin.token, json: { managedBy: 'lidarr-managed' } });
    expect((await json(patched)).managedBy).toBe('lidarr');
  });

  it('hides unexpected failures behind a plain 500', async () => {
    server = await startTestServer();
    // A broken settings row makes the next read throw inside a route.
    const orig = server.ctx.settings.get;
    server.ctx.settings.get = () => {
      throw new Error('disk on fire at /secret/path');
    };
    const res = await server.api('/api/settings', { token: server.admin.token });
    server.ctx.settings.get = orig;
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('{"error":"Internal server error"}');
  });
});

describe('OpenAPI', () => {
  it('documents every /api route the app serves, each with a schema', async () => {
    server = await startTestServer();
    const doc = await json(await server.api('/api/openapi.json'));
    expect(doc.openapi).toBe('3.0.3');
    const { buildApp } = await import('../../server/http/app.js');
    const { apiRoutes, routers } = await import('../../server/areas.js');
    const { app, routes } = buildApp(server.ctx, { apiRoutes, routers });
    const served: string[] = [];
    const walk = (stack: any[]) => {
      for (const layer of stack) {
        if (layer.route) for (const m of Object.keys(layer.route.methods)) served.push(`${m} ${layer.route.path}`);
        else if (layer.handle?.stack) walk(layer.handle.stack);
      }
    };
    walk((app as any).router.stack);
    const apiServed = served.filter((s) => s.split(' ')[1]!.startsWith('/api'));
    expect(apiServed.length).toBeGreaterThan(20);
    for (const entry of apiServed) {
      const [method, path] = entry.split(' ') as [string, string];
      const documented = doc.paths[path.replace(/:(\w+)/g, '{$1}')]?.[method];
      expect(documented, `${entry} is not in /api/openapi.json`).toBeDefined();
      expect(documented.responses, entry).toBeDefined();
    }
    for (const def of routes) expect(def.response, `${def.method} ${def.path}`).toBeDefined();
  });
});
