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
});
