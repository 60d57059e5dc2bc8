import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { json } from './helpers.js';

/**
 * Issue 24 §6: a fresh install offline. The Discover view says why the last update did not finish
 * (the upstream's host was not found), in words and without the request's address, and a preset's
 * previews say when the preview source could not be reached or the preset has no artists yet.
 */

let server: TestServer;
const ADMIN_ID = 1;

beforeAll(async () => {
  // Names under .invalid never resolve: the lookups fail with ENOTFOUND, as on a machine offline.
  server = await startTestServer({
    env: { TONEARM_LISTENBRAINZ_URL: 'http://api.listenbrainz.invalid', TONEARM_DEEZER_URL: 'http://api.deezer.invalid', TONEARM_UPSTREAM_SPACING_MS: '0' },
  });
});
afterAll(async () => {
  await server?.stop();
});

describe('status text names the real cause', () => {
  it('a failed first update says that ListenBrainz could not be reached, and why', async () => {
    await server.ctx.discovery.refreshUser(ADMIN_ID);
    const d = await json(await server.api('/api/discover', { token: server.admin.token }));
    expect(d.lastUpdated).toBeNull();
    expect(d.stale).toBe(true);
    expect(d.lastError).toMatch(/^ListenBrainz could not be reached \(host not found/);
    expect(d.lastError).not.toContain('http');
  });

  it('a preset without artists says where they come from; with artists but Deezer offline, that Deezer could not be reached', async () => {
    const empty = await json(await server.api('/api/discover/playlists/trending-now/previews', { token: server.admin.token }));
    expect(empty.previews).toEqual([]);
    expect(empty.problem).toMatch(/^No artists for this playlist yet/);

    server.ctx.discovery.repo.replaceRanking(
      'global',
      [{ name_key: 'world hit', name: 'World Hit', mbid: null, listeners: 10, source: 'listenbrainz', image: null, in_library: 0 }],
      server.ctx.clock.now(),
    );
    const offline = await json(await server.api('/api/discover/playlists/trending-now/previews', { token: server.admin.token }));
    expect(offline.previews).toEqual([]);
    expect(offline.problem).toMatch(/^Deezer could not be reached \(host not found/);
    expect(offline.problem).not.toContain('http');
  });
});
