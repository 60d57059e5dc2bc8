import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntegrationError } from '../../server/integrations/errors.js';
import { PlexServerClient, PlexTvClient, plexAuthUrl, type PlexProduct } from '../../server/integrations/plex/index.js';
import { startPlexServerFake, startPlexTvFake, type PlexServerFake, type PlexTvFake } from '../fakes/plex/index.js';

/** The Plex clients against the plex.tv and Plex Media Server fakes, over real HTTP. */

const product: PlexProduct = { clientIdentifier: 'install-1234', product: 'Tonearm', version: '0.1.0' };
let tv: PlexTvFake;
let pms: PlexServerFake;
let adminToken: string;

beforeAll(async () => {
  [tv, pms] = await Promise.all([startPlexTvFake(), startPlexServerFake()]);
  adminToken = tv.addAccount({ username: 'owner', title: 'Owner' });
  pms.tokens.add(adminToken);
  pms.sections = [
    { key: '1', title: 'Movies', type: 'movie', locations: ['/media/movies'] },
    { key: '3', title: 'Music', type: 'artist', locations: ['/media/music', '/media/more music'] },
  ];
  pms.tracks = Array.from({ length: 450 }, (_, i) => ({ ratingKey: String(1000 + i), sectionKey: '3', title: `Song ${i}`, artist: `Artist ${i % 7}`, album: `Album ${i % 20}`, file: `/media/music/a${i % 7}/song-${i}.flac` }));
});
afterAll(async () => {
  await Promise.all([tv?.close(), pms?.close()]);
});

const server = (token: string | null = adminToken) => new PlexServerClient({ baseUrl: pms.url, token, product, timeoutMs: 3000 });

describe('plex.tv', () => {
  it('creates a strong PIN, stays pending until approved, then hands out the account token', async () => {
    const client = new PlexTvClient({ baseUrl: tv.url, product });
    const pin = await client.createPin();
    expect(pin.authToken).toBeNull();
    expect(pin.code.length).toBeGreaterThan(8);
    expect(pin.expiresIn).toBe(1800);
    expect((await client.checkPin(pin.id, pin.code)).authToken).toBeNull();
    tv.approve(pin.id, adminToken);
    expect((await client.checkPin(pin.id, pin.code)).authToken).toBe(adminToken);
    const created = tv.requests.find((r) => r.path === '/api/v2/pins' && r.method === 'POST')!;
    expect(created.query.get('strong')).toBe('true');
    expect(created.headers['x-plex-client-identifier']).toBe('install-1234');
    expect(created.headers['x-plex-product']).toBe('Tonearm');
    expect(created.headers['x-plex-version']).toBe('0.1.0');
    expect(created.headers['x-plex-platform']).toBe('Node.js');
    expect(created.headers.accept).toBe('application/json');
  });

  it('an expired PIN is not_found', async () => {
    const client = new PlexTvClient({ baseUrl: tv.url, product });
    const pin = await client.createPin();
    tv.expire(pin.id);
    const err = await client.checkPin(pin.id, pin.code).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IntegrationError);
    expect((err as IntegrationError).kind).toBe('not_found');
    expect((err as IntegrationError).message).toContain('Code not found or expired');
  });

  it('builds the app.plex.tv page a user approves the PIN on', () => {
    expect(plexAuthUrl('https://app.plex.tv/', 'cid', 'abc', 'Tonearm', 'http://me/x')).toBe(
      'https://app.plex.tv/auth#?clientID=cid&code=abc&context%5Bdevice%5D%5Bproduct%5D=Tonearm&forwardUrl=http%3A%2F%2Fme%2Fx',
    );
  });

  it('lists only servers among resources, with connections, and reads home users; a bad token is unauthorized', async () => {
    tv.servers = [
      { name: 'Den', clientIdentifier: pms.machineIdentifier, accessToken: 'server-token', owned: true, uri: pms.url },
      { name: 'Phone', clientIdentifier: 'phone', accessToken: 'x', owned: true, uri: 'http://10.0.0.9:32500', provides: 'client,player' },
    ];
    tv.homeUsers = [{ id: 21, uuid: 'kid-uuid', title: 'Kid', username: '', restricted: true, admin: false, pin: '1234', token: 'kid-token' }];
    const client = new PlexTvClient({ baseUrl: tv.url, product, token: adminToken });
    const servers = await client.servers();
    expect(servers.map((s) => [s.name, s.owned, s.accessToken, s.provides])).toEqual([['Den', true, 'server-token', ['server']]]);
    expect(servers[0]!.connections[0]).toEqual({ protocol: 'http', address: '127.0.0.1', port: pms.port, uri: pms.url, local: true, relay: false, IPv6: false });
    const users = await client.homeUsers();
    expect(users.map((u) => [u.id, u.title, u.restricted, u.protected])).toEqual([['21', 'Kid', true, true]]);
    expect((await client.account()).username).toBe('owner');
    const bad = await new PlexTvClient({ baseUrl: tv.url, product, token: 'nope' }).account().catch((e: unknown) => e);
    expect((bad as IntegrationError).kind).toBe('unauthorized');
    expect((bad as IntegrationError).message).toContain('User could not be authenticated');
  });

  it('switches to a home user with its PIN, also through the legacy XML route', async () => {
    const client = new PlexTvClient({ baseUrl: tv.url, product, token: adminToken });
    expect((await client.switchHomeUser('21', '1234')).token).toBe('kid-token');
    const wrong = await client.switchHomeUser('21', '0000').catch((e: unknown) => e);
    expect((wrong as IntegrationError).kind).toBe('unauthorized');
    tv.legacySwitchOnly = true;
    try {
      const switched = await client.switchHomeUser('21', '1234');
      expect(switched).toEqual({ token: 'kid-token', account: { id: '21', uuid: 'kid-uuid', username: null, title: 'Kid' } });
    } finally {
      tv.legacySwitchOnly = false;
    }
  });
});

describe('Plex Media Server', () => {
  for (const mode of ['JSON', 'XML'] as const) {
    it(`reads identity, music sections and every track page with file paths (${mode})`, async () => {
      pms.xmlOnly = mode === 'XML';
      try {
        const client = server();
        expect(await client.identity()).toEqual({ machineIdentifier: pms.machineIdentifier, version: '1.41.3.9314-a0bfb8370', claimed: true });
        const music = await client.musicSections();
        expect(music.map((s) => [s.key, s.title, s.locations.map((l) => l.path)])).toEqual([['3', 'Music', ['/media/music', '/media/more music']]]);
        const pages: number[] = [];
        const files: string[] = [];
        const total = await client.eachTrackPage('3', (p) => {
          pages.push(p.offset);
          files.push(...p.tracks.flatMap((t) => t.files));
        });
        expect(total).toBe(450);
        expect(pages).toEqual([0, 200, 400]);
        expect(files[449]).toBe('/media/music/a1/song-449.flac');
        const first = (await client.tracksPage('3', 0, 1)).tracks[0]!;
        expect(first).toEqual({ ratingKey: '1000', title: 'Song 0', artist: 'Artist 0', album: 'Album 0', originalTitle: null, index: 1, durationMs: 200000, files: ['/media/music/a0/song-0.flac'] });
        const paged = pms.requests.filter((r) => r.path === '/library/sections/3/all').at(-1)!;
        expect(paged.query.get('X-Plex-Container-Size')).toBe('1');
        expect(paged.headers['x-plex-token']).toBe(adminToken);
      } finally {
        pms.xmlOnly = false;
      }
    });
  }

  it('creates a playlist, lists its items, appends, removes by playlist item id, renames and deletes it', async () => {
    const client = server();
    const created = await client.createPlaylist({ machineIdentifier: pms.machineIdentifier, title: 'Weekly', ratingKeys: ['1000', '1001', '1002'] });
    expect(created.title).toBe('Weekly');
    expect(created.leafCount).toBe(3);
    await client.addPlaylistItems(created.ratingKey, pms.machineIdentifier, ['1003', '1000']);
    let items = await client.playlistItems(created.ratingKey);
    expect(items.map((i) => i.ratingKey)).toEqual(['1000', '1001', '1002', '1003', '1000']);
    await client.removePlaylistItem(created.ratingKey, items[0]!.playlistItemID);
    items = await client.playlistItems(created.ratingKey);
    expect(items.map((i) => i.ratingKey)).toEqual(['1001', '1002', '1003', '1000']);
    await client.updatePlaylist(created.ratingKey, { title: 'Weekly (Ann)', summary: 'From Tonearm' });
    const listed = (await client.playlists()).find((p) => p.ratingKey === created.ratingKey)!;
    expect([listed.title, listed.summary, listed.leafCount, listed.smart]).toEqual(['Weekly (Ann)', 'From Tonearm', 4, false]);
    const post = pms.requests.find((r) => r.path === '/playlists' && r.method === 'POST')!;
    expect(post.query.get('uri')).toBe(`server://${pms.machineIdentifier}/com.plexapp.plugins.library/library/metadata/1000,1001,1002`);
    await client.deletePlaylist(created.ratingKey);
    expect(pms.playlists.has(created.ratingKey)).toBe(false);
    const gone = await client.playlistItems(created.ratingKey).catch((e: unknown) => e);
    expect((gone as IntegrationError).kind).toBe('not_found');
  });

  it('a playlist longer than one URI is created in chunks, in order', async () => {
    const client = server();
    const keys = pms.tracks.slice(0, 430).map((t) => t.ratingKey);
    const created = await client.createPlaylist({ machineIdentifier: pms.machineIdentifier, title: 'Long', ratingKeys: keys });
    expect((await client.playlistItems(created.ratingKey)).map((i) => i.ratingKey)).toEqual(keys);
    await client.deletePlaylist(created.ratingKey);
  });

  it('a refused token is unauthorized and the HTML page is reduced to its title', async () => {
    const err = (await server('wrong').sections().catch((e: unknown) => e)) as IntegrationError;
    expect(err.kind).toBe('unauthorized');
    expect(err.status).toBe(401);
    expect(err.message).toContain('(Unauthorized)');
    expect(err.message).not.toMatch(/<|html|h1/i);
  });

  it('an HTML error page on a 500 never reaches the message; reads are tried once more', async () => {
    pms.htmlErrorNext(1, 500);
    expect((await server().musicSections()).length).toBe(1);
    pms.htmlErrorNext(2, 500);
    const err = (await server().sections().catch((e: unknown) => e)) as IntegrationError;
    expect(err.kind).toBe('server_error');
    expect(err.message).toContain('(500 Internal Server Error)');
    expect(err.message).not.toMatch(/stack trace|<|style/);
  });

  it('a slow server times out', async () => {
    pms.faults.delayMs = 500;
    try {
      const err = (await new PlexServerClient({ baseUrl: pms.url, token: adminToken, product, timeoutMs: 150 }).identity().catch((e: unknown) => e)) as IntegrationError;
      expect(err.kind).toBe('timeout');
    } finally {
      pms.faults.delayMs = 0;
    }
  });

  it('an address that is not a Plex server is wrong_url', async () => {
    const err = (await new PlexServerClient({ baseUrl: tv.url, token: adminToken, product }).identity().catch((e: unknown) => e)) as IntegrationError;
    expect(['wrong_url', 'not_found']).toContain(err.kind);
  });
});
