import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup, type Setup } from './helpers.js';

let s: Setup;

beforeAll(async () => {
  s = await setup();
});
afterAll(() => s.close());

const health = async () => (await s.call('GET', '/api/health')).body;

describe('Lidarr down, then back', () => {
  it('answers a clear 502, opens the circuit after repeated failures, shows it in health, and recovers', async () => {
    expect((await health()).lidarr).toEqual({ configured: true, circuitOpen: false });
    await s.fake.state.down();
    for (let i = 0; i < 3; i++) {
      const res = await s.call('GET', '/api/settings/lidarr/profiles');
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ error: 'Upstream unavailable', code: 'UPSTREAM_UNAVAILABLE' });
      expect(res.body.message).toContain('connection refused');
    }
    expect((await health()).lidarr).toEqual({ configured: true, circuitOpen: true });
    const refused = await s.call('GET', '/api/library/rootfolder');
    expect(refused.status).toBe(502);
    expect(refused.body.message).toContain('not calling it again');
    // The connection test bypasses the breaker: the user may just have fixed Lidarr.
    expect((await s.call('GET', '/api/settings/lidarr/test')).body.message).toContain('connection refused');
    // Requests still list from storage while Lidarr is away.
    expect((await s.call('GET', '/api/requests?refresh=1')).status).toBe(200);

    await s.fake.state.up();
    s.server.clock.advance(61_000);
    const back = await s.call('GET', '/api/settings/lidarr/profiles');
    expect(back.status).toBe(200);
    expect((await health()).lidarr).toEqual({ configured: true, circuitOpen: false });
  });

  it('an index run while Lidarr is down fails with the cause and leaves the library as it was', async () => {
    await s.fake.state.down();
    const id = s.server.ctx.lidarr.index.requestFull('test');
    await s.indexed();
    const run = (await s.call('GET', `/api/library/refresh/${id}`)).body;
    expect(run.status).toBe('failed');
    expect(run.error).toContain('connection refused');
    await s.fake.state.up();
  });
});

describe('a slow Lidarr', () => {
  it('never blocks other routes', async () => {
    s.fake.state.slow(1500);
    const started = performance.now();
    const slowCall = s.call('GET', '/api/settings/lidarr/metadata-profiles');
    const others = await Promise.all([
      s.call('GET', '/api/health/live'),
      s.call('GET', '/api/library/canonical?kind=artists&pageSize=10'),
      s.call('GET', '/api/settings'),
      s.call('GET', '/api/requests'),
    ]);
    const elapsed = performance.now() - started;
    expect(others.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(elapsed).toBeLessThan(1000);
    expect((await slowCall).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1400);
    s.fake.state.slow(0);
  });
});
