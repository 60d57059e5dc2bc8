import { match } from 'path-to-regexp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes, areas, routers } from '../../server/areas.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Each area is declared once in server/areas.ts (routes, start, health block, features). Starting
 * follows the list's order, and routes are mounted area by area; that is only safe while no request
 * can be answered by routes of two different areas, which this test checks with the matcher express
 * uses (a route's own path, its parameters filled in, must not match another area's route).
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

const sample = (path: string) => path.replace(/:(\w+)/g, 'x$1').replace(/\*(\w+)/g, 'x/$1');

describe('the areas of the composition root', () => {
  it('have unique names, and every /api route belongs to exactly one area', () => {
    const names = areas.map((a) => a.name);
    expect(new Set(names).size).toBe(names.length);
    const byArea = areas.flatMap((a) => (a.routes ?? []).flatMap((r) => r(server.ctx)).map((d) => `${d.method} ${d.path}`));
    const all = apiRoutes(server.ctx).map((d) => `${d.method} ${d.path}`);
    expect(byArea).toEqual(all);
    expect(new Set(all).size).toBe(all.length);
  });

  it('never answer one request from two areas', () => {
    const routes = areas.flatMap((a) => (a.routes ?? []).flatMap((r) => r(server.ctx)).map((d) => ({ area: a.name, method: d.method, path: d.path })));
    const clashes: string[] = [];
    for (const a of routes) {
      const matches = match(a.path, { sensitive: false });
      for (const b of routes) {
        if (a.area !== b.area && a.method === b.method && matches(sample(b.path))) clashes.push(`${a.method} ${a.path} (${a.area}) also answers ${b.path} (${b.area})`);
      }
    }
    expect(clashes).toEqual([]);
  });

  it('mount their routers at distinct places outside /api', () => {
    const mounts = routers.map((make) => make(server.ctx).mount);
    expect(new Set(mounts).size).toBe(mounts.length);
    for (const m of mounts) expect(m.startsWith('/api')).toBe(false);
  });

  it('add their features and health blocks once the server has started', async () => {
    for (const f of areas.flatMap((a) => a.features ?? [])) expect(server.ctx.features.has(f)).toBe(true);
    expect(server.ctx.health).toHaveLength(areas.filter((a) => a.health).length);
    const res = await server.api('/api/health', { token: server.admin.token });
    const body = (await res.json()) as Record<string, unknown>;
    for (const key of ['library', 'lidarr', 'lidarrConfigured', 'musicbrainzConfigured', 'discovery']) expect(body).toHaveProperty(key);
  });
});
