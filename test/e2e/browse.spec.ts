import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { expect, test, type Page } from '@playwright/test';
import { BROWSE, makeBrowseLibrary } from '../fixtures/browseLibrary.js';
import { startServer } from './global-setup.js';
import { ADMIN, snap } from './helpers.js';

// Browsing a library with a compilation, on a server of its own (the main journey's library stays as it is).
test.describe.configure({ mode: 'serial' });

let tmp: string;
let child: ChildProcess;
let url: string;
let page: Page;
let token: string;

async function call(pathname: string, init: RequestInit & { json?: unknown; token?: string } = {}): Promise<any> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const res = await fetch(url + pathname, { ...init, headers, ...(init.json !== undefined && { body: JSON.stringify(init.json) }) });
  return res.json();
}

test.beforeAll(async ({ browser }) => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-e2e-browse-'));
  const music = makeBrowseLibrary(tmp);
  fs.mkdirSync(path.join(tmp, 'data'));
  ({ child, url } = await startServer(path.join(tmp, 'data'), { TONEARM_MUSIC_DIRS: music, TONEARM_LIBRARY_WATCH: 'false' }));
  await call('/api/onboarding/complete', { method: 'POST', json: { authUser: ADMIN.username, authPassword: ADMIN.password } });
  ({ token } = await call('/api/auth/login', { method: 'POST', json: ADMIN }));
  await expect.poll(async () => (await call('/api/library/canonical?kind=tracks&pageSize=1', { token })).total, { timeout: 30_000 }).toBe(11);
  page = await browser.newPage({ baseURL: url });
  await page.goto('/');
  await page.evaluate((t) => localStorage.setItem('tonearm.token', t), token);
});

test.afterAll(async () => {
  await page?.close();
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 6000))]);
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('artists in natural order without leading articles; compilation-only artists count their appearances', async () => {
  await page.goto('/library/artists');
  const artists = page.getByRole('list', { name: 'Artists' });
  await expect(artists.locator('.tile-title')).toHaveText(BROWSE.artists);
  await expect(artists.getByRole('link', { name: /Band 59/ }).locator('.tile-sub')).toHaveText('0 albums · appears on 1');
  await expect(artists.getByRole('link', { name: /Headliner/ }).locator('.tile-sub')).toHaveText('1 album · appears on 1');
  await snap(page, 'browse-01-artists');

  await page.getByRole('navigation', { name: 'Library sections' }).getByRole('link', { name: 'Albums' }).click();
  await expect(page.getByRole('list', { name: 'Albums' }).locator('.tile-title')).toHaveText(
    ['Nine Lives', 'Ten Years', 'Headliner Live', BROWSE.compilation, 'Stripes 2', 'Stripes 10'],
  );
});

test('the page of an artist known only from a compilation lists the album and its tracks there', async () => {
  await page.goto('/library/artists');
  await page.getByRole('list', { name: 'Artists' }).getByRole('link', { name: /Band 59/ }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Band 59' })).toBeVisible();
  await expect(page.getByText('0 albums · appears on 1 · 1 track')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Appears on' })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Appears on' }).locator('.tile-title')).toHaveText([BROWSE.compilation]);
  await expect(page.getByRole('table', { name: "Tracks of Band 59 on other artists' albums" }).locator('.track-title')).toHaveText(['Fifty-Nine Song']);
  await expect(page.getByText('No albums.')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Play', exact: true })).toBeEnabled();
  await snap(page, 'browse-02-compilation-artist');

  await page.getByRole('list', { name: 'Appears on' }).getByRole('link').click();
  await expect(page.getByRole('heading', { level: 1, name: BROWSE.compilation })).toBeVisible();
});

test('an artist with albums of its own shows them first, then its appearances', async () => {
  await page.goto('/library/artists');
  await page.getByRole('list', { name: 'Artists' }).getByRole('link', { name: /Headliner/ }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Headliner' })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Albums' }).locator('.tile-title')).toHaveText(['Headliner Live']);
  await expect(page.getByRole('list', { name: 'Appears on' }).locator('.tile-title')).toHaveText([BROWSE.compilation]);
});

test('playlists fill from an album page: one row into a new playlist, then two ticked rows; reordered on the playlist page', async () => {
  const T = ['Track 10', 'Track 2', 'Track 1'] as const; // Headliner Live in track-number order
  await page.goto('/library/albums');
  await page.getByRole('list', { name: 'Albums' }).getByRole('link', { name: /Headliner Live/ }).click();
  const rows = page.getByRole('table', { name: 'Tracks of Headliner Live' });
  await expect(rows.locator('.track-title')).toHaveText(T);

  // One track from its row: "New playlist…" asks the name and creates it with the track.
  await rows.getByRole('button', { name: `Add ${T[0]} to a playlist`, exact: true }).click();
  const picker = page.getByRole('group', { name: 'Choose a playlist' });
  await picker.getByRole('button', { name: 'New playlist…' }).click();
  await picker.getByLabel('Name of the new playlist').fill('Road trip');
  await picker.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('Added 1 track to Road trip.')).toBeVisible();

  // Two ticked tracks at once, into the playlist just made.
  await rows.getByLabel(`Select ${T[1]}`, { exact: true }).check();
  await rows.getByLabel(`Select ${T[2]}`, { exact: true }).check();
  await page.getByRole('button', { name: 'Add 2 to playlist' }).click();
  await page.getByRole('group', { name: 'Choose a playlist' }).getByRole('button', { name: 'Road trip' }).click();
  await expect(page.getByText('Added 2 tracks to Road trip.')).toBeVisible();
  await snap(page, 'browse-03-added-to-playlist');

  const { playlists } = await call('/api/playlists/playlists', { token });
  const road = playlists.find((p: { name: string }) => p.name === 'Road trip');
  await page.goto(`/playlists/${road.id}`);
  const list = page.getByRole('table', { name: 'Tracks of Road trip' });
  await expect(list.locator('.track-title')).toHaveText(T);
  // A short playlist reads in minutes and seconds, never "1 min".
  await expect(page.getByText(/^3 tracks · 0:\d\d · Only you$/)).toBeVisible();

  await list.getByRole('button', { name: `Move ${T[0]} down`, exact: true }).click();
  await expect(list.locator('.track-title')).toHaveText([T[1], T[0], T[2]]);
  // The first move is saved (and the list re-read) before the keyboard moves another row.
  await expect
    .poll(async () => (await call(`/api/playlists/playlists/${road.id}`, { token })).tracks.map((e: { track: { title: string } }) => e.track.title))
    .toEqual([T[1], T[0], T[2]]);
  await expect(list.getByRole('button', { name: `Move ${T[2]} up`, exact: true })).toBeEnabled();
  await list.locator('tbody tr').nth(2).focus();
  await page.keyboard.press('Alt+ArrowUp');
  const order = [T[1], T[2], T[0]];
  await expect(list.locator('.track-title')).toHaveText(order);
  await expect
    .poll(async () => (await call(`/api/playlists/playlists/${road.id}`, { token })).tracks.map((e: { track: { title: string } }) => e.track.title))
    .toEqual(order);
  await snap(page, 'browse-04-playlist-reordered');
});
