import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { expect, type Browser, type BrowserContextOptions, type Page } from '@playwright/test';
import { startServer } from './global-setup.js';

export const ADMIN = { username: 'admin', password: 'correct horse battery' };
/** The administrator's password after the account test of tonearm.spec.ts changes it. */
export const ADMIN_NEW_PASSWORD = 'an even better horse';
/** A user who is not an administrator, made by tonearm.spec.ts. */
export const LISTENER = { username: 'listener', password: 'listener password' };

export function baseUrl(): string {
  const url = process.env.TONEARM_E2E_URL;
  if (!url) throw new Error('TONEARM_E2E_URL is not set: the global setup did not start the server');
  return url;
}

export function musicDir(): string {
  return process.env.TONEARM_E2E_MUSIC!;
}

/** The music folder the server was given in TONEARM_MUSIC_DIRS. */
export function envMusicDir(): string {
  return process.env.TONEARM_E2E_ENV_MUSIC!;
}

const screensDir = path.resolve(import.meta.dirname, '../../test-results/e2e/screens');

/** Keeps a full-page screenshot of the current screen as a test artifact. */
export async function snap(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(screensDir, `${name}.png`), fullPage: true });
}

/** Current state of the page's audio element. */
export function audioState(page: Page) {
  return page.locator('audio[data-testid="audio"]').evaluate((el: HTMLAudioElement) => ({
    currentTime: el.currentTime,
    paused: el.paused,
    error: el.error ? el.error.code : null,
    src: el.currentSrc,
  }));
}

/** Follows a main-navigation entry, opening the "More" menu first when the entry lives there. */
export async function goByNav(page: Page, name: string, how: 'click' | 'tap' = 'click'): Promise<void> {
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav).toBeVisible();
  // An entry's name may carry a count ("Inbox, 3 unread").
  const link = nav.getByRole('link', { name: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(,|$)`) });
  if (!(await link.isVisible())) await nav.getByRole('button', { name: /^More/ })[how]();
  await link[how]();
}

/** A JSON call to a spec's own server: status and parsed body. */
export type ApiCall = (pathname: string, init?: RequestInit & { json?: unknown }) => Promise<{ status: number; body: any }>;

/** JSON calls to the server at `url`, with the bearer token `token()` answers when it answers one. */
export function apiCaller(url: string, token: () => string | undefined): ApiCall {
  return async (pathname, init = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const t = token();
    if (t) headers.authorization = `Bearer ${t}`;
    const res = await fetch(url + pathname, { ...init, headers, ...(init.json !== undefined && { body: JSON.stringify(init.json) }) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
}

export interface OwnServer {
  child: ChildProcess;
  url: string;
  /** The administrator's session. */
  token: string;
  /** API calls as the administrator. */
  call: ApiCall;
}

/**
 * A server of the spec's own (global-setup's startServer with `env`), onboarded with ADMIN, who is
 * signed in through the API.
 */
export async function startOwnServer(dataDir: string, env: Record<string, string>): Promise<OwnServer> {
  const { child, url } = await startServer(dataDir, env);
  let token: string | undefined;
  const call = apiCaller(url, () => token);
  await call('/api/onboarding/complete', { method: 'POST', json: { authUser: ADMIN.username, authPassword: ADMIN.password } });
  ({ token } = (await call('/api/auth/login', { method: 'POST', json: ADMIN })).body as { token: string });
  return { child, url, token: token!, call };
}

/** A new browser page on `url` that holds the session `token` (as the sign-in screen would leave it). */
export async function openSignedIn(browser: Browser, url: string, token: string, options: BrowserContextOptions = {}): Promise<Page> {
  const page = await browser.newPage({ baseURL: url, ...options });
  await page.goto('/');
  await page.evaluate((t) => localStorage.setItem('tonearm.token', t), token);
  return page;
}

/** Stops a spec's own server: SIGTERM, then up to 6 s for it to exit. */
export async function stopOwnServer(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 6000))]);
}
