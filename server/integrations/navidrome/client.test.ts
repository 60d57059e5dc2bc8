import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startNavidromeFake, type NavidromeFake } from '../../../test/fakes/navidrome/index.js';
import { IntegrationError } from '../errors.js';
import { NavidromeClient } from './client.js';

let fake: NavidromeFake;
beforeEach(async () => {
  fake = await startNavidromeFake({ username: 'alice', password: 'pässwörd' });
});
afterEach(() => fake.close());

const clientFor = (overrides: Partial<ConstructorParameters<typeof NavidromeClient>[0]> = {}) =>
  new NavidromeClient({ baseUrl: fake.url, username: 'alice', password: 'pässwörd', ...overrides });

async function failure(call: Promise<unknown>): Promise<IntegrationError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(IntegrationError);
  return err as IntegrationError;
}

describe('NavidromeClient', () => {
  it('pings with token auth and reports the server', async () => {
    expect(await clientFor().ping()).toEqual({ version: '1.16.1', type: 'navidrome', serverVersion: '0.53.3', openSubsonic: true });
    expect(await clientFor().testConnection()).toEqual({
      ok: true,
      version: '1.16.1',
      type: 'navidrome',
      serverVersion: '0.53.3',
      openSubsonic: true,
    });
    const [first, second] = fake.state.requests.map((r) => r.query);
    expect(first).toMatchObject({ u: 'alice', v: '1.16.1', c: 'tonearm', f: 'json' });
    expect(first!.p).toBeUndefined();
    expect(first!.s).toMatch(/^[0-9a-f]{16}$/);
    expect(first!.t).toBe(createHash('md5').update(`pässwörd${first!.s}`).digest('hex'));
    expect(second!.s).not.toBe(first!.s);
  });

  it('returns the payload of other methods', async () => {
    expect((await clientFor().call('getLicense')).license).toEqual({ valid: true });
  });

  it('maps a wrong password (Subsonic error 40) to unauthorized', async () => {
    const err = await failure(clientFor({ password: 'wrong' }).testConnection());
    expect([err.kind, err.message, err.details]).toEqual([
      'unauthorized',
      'Navidrome rejected the username or password (Subsonic error 40)',
      { code: 40 },
    ]);
  });

  it('maps a generic failed envelope to server_error', async () => {
    const err = await failure(clientFor().call('getNowPlaying'));
    expect([err.kind, err.message]).toEqual([
      'server_error',
      'Navidrome refused getNowPlaying (Subsonic error 0: a generic error)',
    ]);
  });

  it('maps a URL that serves a web page to wrong_url', async () => {
    const err = await failure(clientFor({ baseUrl: `${fake.url}/navidrome` }).ping());
    expect(err.kind).toBe('wrong_url');
    expect(err.message).toBe(
      `not Navidrome at this URL: ${fake.url}/navidrome/rest/ping did not answer as a Subsonic server (check the URL and any base path)`,
    );
  });

  it('maps a slow server to timeout and a closed port to unreachable', async () => {
    fake.state.delayMs = 2_000;
    const started = Date.now();
    expect((await failure(clientFor({ timeoutMs: 150 }).ping())).kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(450);
    await fake.close();
    const err = await failure(clientFor().ping());
    expect([err.kind, err.message]).toEqual(['unreachable', `Navidrome at ${fake.url}/rest/ping: connection refused`]);
    fake = await startNavidromeFake(); // afterEach closes this one
  });

  it('manages playlists with repeated song parameters, searches and scans', async () => {
    const [a, b, c] = fake.addSongs([
      { title: 'Night Song', artist: 'Harbor', album: 'Salt', path: 'Harbor/Salt/01 - Night Song.flac', duration: 200, track: 1 },
      { title: 'Day Song', artist: 'Harbor', album: 'Salt', path: 'Harbor/Salt/02 - Day Song.flac', duration: 180, track: 2 },
      { title: 'Dusk', artist: 'Other', album: 'Else', path: 'Other/Else/01 - Dusk.flac', duration: 100, track: 1 },
    ]);
    const client = clientFor();
    expect((await client.searchSongs('night')).map((s) => s.id)).toEqual([a]);
    expect(await client.searchSongs('')).toHaveLength(3);
    expect((await client.searchSongs('harbor', { count: 1, offset: 1 })).map((s) => s.id)).toEqual([b]);
    expect((await client.searchSongs('Night Song'))[0]).toEqual({
      id: a,
      title: 'Night Song',
      artist: 'Harbor',
      album: 'Salt',
      path: 'Harbor/Salt/01 - Night Song.flac',
      durationSeconds: 200,
      track: 1,
      musicBrainzId: null,
    });
    const id = await client.createPlaylist('Mix', [a!, b!]);
    expect(id).toEqual(expect.any(String));
    expect(fake.state.requests.at(-1)!.all.songId).toEqual([a, b]);
    await client.updatePlaylist(id!, { name: 'Mix 2', comment: 'hello', add: [c!, a!], removeIndexes: [0, 1] });
    expect(fake.state.requests.at(-1)!.all).toMatchObject({ songIdToAdd: [c, a], songIndexToRemove: ['0', '1'] });
    expect(await client.getPlaylists()).toEqual([{ id, name: 'Mix 2', comment: 'hello', owner: 'alice', songCount: 2 }]);
    expect((await client.getPlaylist(id!)).entries.map((e) => e.id)).toEqual([c, a]);
    await client.deletePlaylist(id!);
    expect(await client.getPlaylists()).toEqual([]);
    expect((await failure(client.getPlaylist(id!))).kind).toBe('not_found');
    fake.addFiles([{ title: 'New', artist: 'Harbor', album: 'Salt', path: 'Harbor/Salt/03 - New.flac', duration: 1, track: 3 }]);
    expect(await client.startScan()).toEqual({ scanning: true, count: 3 });
    await new Promise((r) => setTimeout(r, 120));
    expect(await client.getScanStatus()).toEqual({ scanning: false, count: 4 });
  });

  it('falls back to the encoded password when the server refuses tokens', async () => {
    await fake.close();
    fake = await startNavidromeFake({ username: 'alice', password: 'pässwörd', tokenAuth: false });
    const client = clientFor();
    expect(client.authMode).toBe('token');
    await client.ping();
    expect(client.authMode).toBe('password');
    const [refused, accepted] = fake.state.requests.map((r) => r.query);
    expect(refused!.t).toBeDefined();
    expect(accepted!.p).toBe(`enc:${Buffer.from('pässwörd').toString('hex')}`);
    expect(accepted!.t).toBeUndefined();
    await client.ping();
    expect(fake.state.requests).toHaveLength(3); // no token attempt any more
    // Forced token authentication keeps the server's refusal.
    expect((await failure(clientFor({ auth: 'token' }).ping())).message).toBe(
      'Navidrome does not accept token authentication for this user (Subsonic error 41)',
    );
  });
});
