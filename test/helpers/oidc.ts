import type { TestAccount, TestOidcProvider } from '../fakes/oidc/provider.js';
import type { TestServer } from './server.js';

/** A browser's cookie jar for one host, enough for the provider's interaction cookies. */
export class Jar {
  private readonly cookies = new Map<string, string>();
  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const value = pair!.slice(eq + 1).trim();
      if (value === '') this.cookies.delete(pair!.slice(0, eq).trim());
      else this.cookies.set(pair!.slice(0, eq).trim(), value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** Follows redirects like a browser until one leaves the provider; answers that last Location. */
export async function throughProvider(idp: TestOidcProvider, start: string): Promise<URL> {
  const jar = new Jar();
  let url = new URL(start);
  for (let hop = 0; hop < 10; hop++) {
    if (url.origin !== idp.issuer) return url;
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.store(res);
    const location = res.headers.get('location');
    if (!location) throw new Error(`provider answered ${res.status} without a redirect: ${await res.text()}`);
    url = new URL(location, url);
  }
  throw new Error('too many redirects');
}

/** Where /sso/callback sent the browser (with the browser's Tonearm cookies, if any). */
export async function callback(back: URL, cookie = ''): Promise<URL> {
  const res = await fetch(back, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  if (res.status !== 302) throw new Error(`/sso/callback answered ${res.status}`);
  return new URL(res.headers.get('location')!, back);
}

/** The whole sign-in journey: login route → provider → /sso/callback → /sso/complete#… (its fragment). */
export async function browserSignIn(server: TestServer, idp: TestOidcProvider, account: TestAccount): Promise<URLSearchParams> {
  idp.signInAs(account);
  const start = await fetch(`${server.url}/api/auth/oidc/login`, { redirect: 'manual' });
  if (start.status !== 302) throw new Error(`login answered ${start.status}: ${await start.text()}`);
  const back = await throughProvider(idp, start.headers.get('location')!);
  if (back.origin + back.pathname !== `${server.url}/sso/callback`) throw new Error(`provider sent the browser to ${back.href}`);
  const done = await callback(back);
  if (done.pathname !== '/sso/complete' || done.search !== '') throw new Error(`callback sent the browser to ${done.href}`);
  return new URLSearchParams(done.hash.slice(1));
}

/** Signs in through the provider and trades the code: the session's answer (status and body). */
export async function oidcSession(server: TestServer, idp: TestOidcProvider, account: TestAccount) {
  const fragment = await browserSignIn(server, idp, account);
  const code = fragment.get('code');
  if (!code) throw new Error(`sign-in failed: ${fragment.get('error')}`);
  const res = await server.api('/api/auth/oidc/exchange', { method: 'POST', json: { code } });
  return { status: res.status, body: (await res.json()) as { token: string; user: { id: number; username: string; role: string } } };
}

/**
 * Settings → Account → "Link": the signed-in user (token) starts a link, the browser goes through the
 * provider as `account` and back; answers where the callback sent the browser (Settings → Account).
 */
export async function linkIdentity(
  server: TestServer,
  idp: TestOidcProvider,
  token: string,
  account: TestAccount,
  options: { withCookie?: boolean } = {},
): Promise<URL> {
  idp.signInAs(account);
  const started = await server.api('/api/auth/oidc/link', { method: 'POST', token });
  if (started.status !== 200) throw new Error(`link answered ${started.status}: ${await started.text()}`);
  const jar = new Jar();
  jar.store(started);
  const { url } = (await started.json()) as { url: string };
  const back = await throughProvider(idp, url);
  return callback(back, options.withCookie === false ? '' : jar.header());
}
