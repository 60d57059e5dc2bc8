import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { expect, test, type Page } from '@playwright/test';
import { makeBrowseLibrary } from '../fixtures/browseLibrary.js';
import { startServer } from './global-setup.js';
import { ADMIN, audioState, goByNav, snap } from './helpers.js';

// TONEARM_BASE_PATH=/music behind a small reverse proxy that forwards /music/ unchanged and records
// every request: the main screens, playback and /ws work, and no request escapes the prefix.
test.describe.configure({ mode: 'serial' });

let tmp: string;
let child: ChildProcess;
let proxy: http.Server;
let proxyUrl: string;
let page: Page;
const seen: string[] = [];

function startProxy(target: URL): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('upgrade', (req, socket, head) => {
    seen.push(req.url ?? '');
    const upstream = net.connect(Number(target.port), target.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(lines.join('\r\n') + '\r\n\r\n');
      upstream.write(head);
      socket.pipe(upstream).pipe(socket);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

test.beforeAll(async ({ browser }) => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-e2e-base-'));
  const music = makeBrowseLibrary(tmp);
  fs.mkdirSync(path.join(tmp, 'data'));
  let url: string;
  ({ child, url } = await startServer(path.join(tmp, 'data'), { TONEARM_MUSIC_DIRS: music, TONEARM_LIBRARY_WATCH: 'false', TONEARM_BASE_PATH: '/music' }));
  expect(url.endsWith('/music')).toBe(true);
  proxy = await startProxy(new URL(url));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const call = async (pathname: string, init: RequestInit & { json?: unknown; token?: string } = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    return (await fetch(url + pathname, { ...init, headers, ...(init.json !== undefined && { body: JSON.stringify(init.json) }) })).json();
  };
  await call('/api/onboarding/complete', { method: 'POST', json: { authUser: ADMIN.username, authPassword: ADMIN.password } });
  const { token } = await call('/api/auth/login', { method: 'POST', json: ADMIN });
  await expect.poll(async () => (await call('/api/library/canonical?kind=tracks&pageSize=1', { token })).total, { timeout: 30_000 }).toBe(11);
  page = await browser.newPage();
});

test.afterAll(async () => {
  await page?.close();
  await new Promise((r) => (proxy ? proxy.close(r) : r(null)));
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 6000))]);
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('signs in, browses, plays and opens settings under /music/ through the proxy', async () => {
  await page.goto(`${proxyUrl}/music/`);
  await page.getByLabel('User name').fill(ADMIN.username);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(`${proxyUrl}/music/library/artists`);
  const artists = page.getByRole('list', { name: 'Artists' });
  await artists.getByRole('link', { name: /Headliner/ }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Headliner' })).toBeVisible();
  expect(new URL(page.url()).pathname.startsWith('/music/library/artists/')).toBe(true);

  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await expect.poll(async () => (await audioState(page)).currentTime, { timeout: 15_000 }).toBeGreaterThan(0);
  expect((await audioState(page)).src.startsWith(`${proxyUrl}/music/api/`)).toBe(true);
  await snap(page, 'base-path-01-playing');

  // A reload of a deep link is answered under the prefix too.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Headliner' })).toBeVisible();

  await goByNav(page, 'Settings');
  await expect(page).toHaveURL(/\/music\/settings/);
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Security' }).click();
  await expect(page.getByTestId('base-path-now')).toHaveText('Served now under /music/.');

  await goByNav(page, 'Connect an app');
  await expect(page.getByText(`${proxyUrl}/music`).first()).toBeVisible();

  await goByNav(page, 'Playlists');
  await expect(page).toHaveURL(`${proxyUrl}/music/playlists`);
  await page.goBack();
  await expect(page).toHaveURL(/\/music\/connect$/);

  const escaped = seen.filter((u) => u !== '/music' && !u.startsWith('/music/'));
  expect(escaped).toEqual([]);
  expect(seen.some((u) => u.startsWith('/music/ws'))).toBe(true);
});
