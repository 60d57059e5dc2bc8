import { startKoitoFake, type KoitoFake } from '../fakes/koito/index.js';
import { startLastFmFake, type LastFmFake } from '../fakes/lastfm/index.js';
import { startListenBrainzFake, type ListenBrainzFake } from '../fakes/listenbrainz/index.js';
import type { TestServer } from '../helpers/server.js';

/** Throws when a step of a flow goes wrong (plain, so the bench can use these helpers outside vitest). */
function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(what);
}

export interface ScrobbleFakes {
  lastfm: LastFmFake;
  listenbrainz: ListenBrainzFake;
  koito: KoitoFake;
  close(): Promise<void>;
}

export async function startScrobbleFakes(): Promise<ScrobbleFakes> {
  const [lastfm, listenbrainz, koito] = await Promise.all([startLastFmFake(), startListenBrainzFake(), startKoitoFake()]);
  return { lastfm, listenbrainz, koito, close: async () => void (await Promise.all([lastfm.close(), listenbrainz.close(), koito.close()])) };
}

/** The environment that points the server at the fakes. */
export function scrobbleEnv(f: ScrobbleFakes): Record<string, string> {
  return {
    TONEARM_LASTFM_URL: f.lastfm.url,
    TONEARM_LASTFM_AUTH_URL: f.lastfm.authUrl,
    TONEARM_LISTENBRAINZ_URL: f.listenbrainz.url,
    TONEARM_UPSTREAM_SPACING_MS: '0',
    // The Koito fake listens on loopback: people other than administrators reach it only because it is allowed.
    ALLOW_PRIVATE_TARGETS: '127.0.0.1',
  };
}

export async function json(res: Response): Promise<any> {
  const text = await res.text();
  return text ? JSON.parse(text) : undefined;
}

/** Saves the Last.fm API key and secret the fake knows. */
export async function configureLastFm(s: TestServer, f: ScrobbleFakes): Promise<void> {
  const res = await s.api('/api/settings', { method: 'POST', token: s.admin.token, json: { integrations: { lastfm: { apiKey: f.lastfm.apiKey, apiSecret: f.lastfm.apiSecret } } } });
  check(res.status === 200, `saving the Last.fm settings answered ${res.status}`);
}

/** A plain user account and its session token. */
export async function createUser(s: TestServer, username: string): Promise<string> {
  const password = `${username}-password-1`;
  const made = await s.api('/api/users', { method: 'POST', token: s.admin.token, json: { username, password } });
  check(made.status === 201, `creating ${username} answered ${made.status}`);
  const login = await json(await s.api('/api/auth/login', { method: 'POST', json: { username, password } }));
  return login.token as string;
}

/** The whole Last.fm web authorization as a browser does it: our link → Last.fm's page → our callback → the UI. */
export async function linkLastFm(s: TestServer, token: string): Promise<string> {
  const start = await json(await s.api('/api/scrobbling/lastfm/link', { token }));
  check(start.linked === false, `the Last.fm link did not start: ${JSON.stringify(start)}`);
  const page = await fetch(start.url, { redirect: 'manual' });
  check(page.status === 302, `the Last.fm page answered ${page.status}`);
  const callback = page.headers.get('location')!;
  check(callback.startsWith(`${s.url}/api/scrobbling/lastfm/link/callback?`), `wrong callback ${callback}`);
  const done = await fetch(callback, { redirect: 'manual' });
  check(done.status === 302, `the callback answered ${done.status}`);
  return done.headers.get('location')!;
}

export async function linkAll(s: TestServer, f: ScrobbleFakes, token: string, who: string): Promise<void> {
  f.lastfm.authUser = who;
  const landed = await linkLastFm(s, token);
  check(landed === '/settings/account?lastfm=linked', `Last.fm not linked: ${landed}`);
  f.listenbrainz.tokens.set(`lb-${who}`, who);
  const lb = await s.api('/api/scrobbling/listenbrainz/link', { method: 'PUT', token, json: { token: `lb-${who}` } });
  check(lb.status === 200, `ListenBrainz link answered ${lb.status}`);
  f.koito.apiKeys.set(`koito-${who}`, who);
  const koito = await s.api('/api/scrobbling/koito/link', { method: 'PUT', token, json: { url: f.koito.url, token: `koito-${who}` } });
  check(koito.status === 200, `Koito link answered ${koito.status}`);
}

export async function until<T>(what: string, probe: () => T | undefined | false | null, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits for something to happen, then a little more, so a duplicate would have time to arrive too. */
export const settle = (ms = 300) => new Promise((r) => setTimeout(r, ms));
