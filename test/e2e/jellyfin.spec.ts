import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { startJellyfinFake, type JellyfinFake } from '../fakes/jellyfin/index.js';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { openSignedIn, snap, startOwnServer, stopOwnServer, type ApiCall } from './helpers.js';

// Jellyfin as a playback destination in Settings → Playback, on a server of its own with the
// Jellyfin fake: address and key saved, Jellyfin's users listed, the connection tested, a person
// given their own Jellyfin user, and a playlist published there.
test.describe.configure({ mode: 'serial' });

const API_KEY = 'e2e-jellyfin-key-42';
let tmp: string;
let child: ChildProcess;
let url: string;
let token: string;
let call: ApiCall;
let page: Page;
let jf: JellyfinFake;

const titles = ['Quay Lights', 'Low Tide Waltz', 'Harbour Bells'];

test.beforeAll(async ({ browser }) => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-e2e-jellyfin-'));
  const music = path.join(tmp, 'music');
  const template = makeMp3Template(path.join(tmp, 'templates'));
  titles.forEach((title, i) => writeTaggedMp3(path.join(music, 'Mariner Choir', 'Night Ferry', `0${i + 1} - ${title}.mp3`), template, { title, artist: 'Mariner Choir', album: 'Night Ferry', track: i + 1 }));
  fs.mkdirSync(path.join(tmp, 'data'));
  jf = await startJellyfinFake({ apiKey: API_KEY });
  jf.addUser('root', true);
  jf.addUser('listener-jf');
  // Jellyfin shares the music folder, under its own mount.
  jf.addSongs(
    titles.map((title, i) => ({
      Name: title,
      Album: 'Night Ferry',
      AlbumArtist: 'Mariner Choir',
      Artists: ['Mariner Choir'],
      Path: `/data/music/Mariner Choir/Night Ferry/0${i + 1} - ${title}.mp3`,
      RunTimeTicks: 10_000_000,
      ProviderIds: {},
    })),
  );
  ({ child, url, token, call } = await startOwnServer(path.join(tmp, 'data'), { TONEARM_MUSIC_DIRS: music, TONEARM_LIBRARY_WATCH: 'false', ALLOW_PRIVATE_TARGETS: '127.0.0.1' }));
  await expect.poll(async () => (await call('/api/library/canonical?kind=tracks&pageSize=1')).body.total, { timeout: 30_000 }).toBe(3);
  expect((await call('/api/users', { method: 'POST', json: { username: 'listener', password: 'listener password 1', role: 'user' } })).status).toBeLessThan(300);
  page = await openSignedIn(browser, url, token);
});

test.afterAll(async () => {
  await page?.close();
  await stopOwnServer(child);
  await jf?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('Jellyfin: saved, its users listed, tested, a person given their own user, and a playlist published', async () => {
  await page.goto('/settings/playback');
  const card: Locator = page.getByRole('region', { name: 'Jellyfin', exact: true });
  await expect(card.getByTestId('playback-jellyfin-status')).toContainText('Not configured');
  await card.getByLabel('Address').fill(jf.url);
  await card.getByLabel('API key').fill(API_KEY);
  await card.getByLabel('Publish playlists to Jellyfin').check();
  await card.getByRole('button', { name: 'Save' }).click();
  await expect(card.getByText('Saved. Playlists are being published to Jellyfin.')).toBeVisible();
  const saved = (await call('/api/settings')).body.playback.jellyfin;
  expect(saved).toMatchObject({ url: jf.url, apiKey: '********', enabled: true });

  // Jellyfin's users, asked with the saved key.
  const defaultUser = card.getByLabel('Jellyfin user for playlists');
  await expect(defaultUser.locator('option')).toHaveText(['Jellyfin’s first administrator (root)', 'root (administrator)', 'listener-jf']);
  await card.getByRole('button', { name: 'Test connection' }).click();
  await expect(card.getByText(/Connected to Jellyfin Server 10\.10\.3 \(Den\): playlists go to the Jellyfin user root/)).toBeVisible();

  const listener = card.getByLabel('listener', { exact: true });
  await listener.selectOption({ label: 'listener-jf' });
  await expect.poll(async () => (await call('/api/settings/playback/jellyfin/users')).body.people.find((p: any) => p.username === 'listener')?.jellyfinUserName).toBe('listener-jf');
  await snap(page, 'jellyfin-01-settings');

  const tracks = (await call('/api/library/canonical?kind=tracks&pageSize=10')).body.items as Array<{ id: number }>;
  const created = await call('/api/playlists/playlists', { method: 'POST', json: { name: 'Evening ferry', trackIds: tracks.map((t) => t.id) } });
  expect(created.status).toBe(201);
  await expect.poll(() => jf.byName('admin · Evening ferry').map((p) => jf.titles(p.id).length)).toEqual([3]);
  await page.reload();
  await expect(page.getByRole('region', { name: 'Jellyfin', exact: true }).getByTestId('playback-jellyfin-status')).toContainText('1 playlist published');
});
