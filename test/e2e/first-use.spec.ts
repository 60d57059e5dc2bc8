import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { ADMIN, ADMIN_NEW_PASSWORD, LISTENER, audioState, baseUrl, musicDir, snap, goByNav } from './helpers.js';

// What a first-time user tripped over (issue 10), on the library the first day built.
const admin = { username: ADMIN.username, password: ADMIN_NEW_PASSWORD };
const phoneSize = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

async function signIn(page: Page, who: { username: string; password: string }) {
  await page.goto('/');
  await page.getByLabel('User name').fill(who.username);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
}

/** The element is on screen, below the top bar and wholly above the fixed player bar. */
async function expectAbovePlayer(page: Page, target: Locator) {
  await expect(target).toBeVisible();
  const player = page.getByRole('region', { name: 'Player' });
  await expect(player).toBeVisible();
  await expect
    .poll(async () => {
      const box = await target.boundingBox();
      const bar = await player.boundingBox();
      return box && bar ? { onScreen: box.y >= 0, clearOfPlayer: box.y + box.height <= bar.y + 0.5 } : null;
    })
    .toEqual({ onScreen: true, clearOfPlayer: true });
}

const noSideways = async (page: Page) =>
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);

for (const size of ['desktop', 'phone'] as const) {
  test(`on a ${size} screen, scan progress and error messages show above the player bar, in words`, async ({ browser }) => {
    const page = await browser.newPage({ baseURL: baseUrl(), ...(size === 'phone' && phoneSize) });
    await signIn(page, admin);
    // A track in the player, so its bar is shown on every screen.
    await page.getByRole('navigation', { name: 'Library sections' }).getByRole('link', { name: 'Tracks' }).click();
    await page.getByRole('button', { name: 'Play Stone Song' }).click();
    await expect(page.getByTestId('now-playing')).toHaveText('Stone Song');
    await page.getByRole('button', { name: 'Pause' }).click();

    await goByNav(page, 'Settings');
    await page.getByRole('button', { name: 'Rescan library' }).click();
    const status = page.getByTestId('scan-status');
    await expect(status).toContainText('Scan completed', { timeout: 30_000 });
    await expectAbovePlayer(page, status);
    await snap(page, `${size}-scan-above-player`);

    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Security' }).click();
    const cors = page.getByRole('region', { name: 'Allowed origins (CORS)' });
    const alert = cors.getByRole('alert');
    // A settings reload right after the page opens may redraw the card: type again if it did.
    await expect(async () => {
      await cors.getByRole('textbox', { name: 'Allowed origins' }).fill('dashboard.local');
      await cors.getByRole('button', { name: 'Save origins' }).click();
      await expect(alert).toHaveText('Allowed origins, entry 1: must be an origin like http://host:port', { timeout: 3000 });
    }).toPass({ timeout: 20_000 });
    await expectAbovePlayer(page, alert);
    await snap(page, `${size}-error-above-player`);

    await goByNav(page, 'Connect an app');
    await expect(page.getByRole('heading', { level: 1, name: 'Connect an app' })).toBeVisible();
    await noSideways(page);
    await snap(page, `${size}-connect`);
    await page.close();
  });
}

test('a track that fails to load is skipped with a notice, and a queue where every track fails stops', async ({ browser }) => {
  const page = await browser.newPage({ baseURL: baseUrl() });
  const folder = path.join(musicDir(), 'Aurora Lane', 'Night Ferry');
  const files = [path.join(folder, '01 Harbor Lights.mp3'), path.join(folder, '02 Slow Current.mp3')];
  const hide = (file: string) => fs.renameSync(file, `${file}.away`);
  try {
    await signIn(page, LISTENER);
    hide(files[0]!);
    await page.getByRole('navigation', { name: 'Library sections' }).getByRole('link', { name: 'Albums' }).click();
    await page.getByRole('link', { name: /Night Ferry/ }).click();
    await page.getByRole('button', { name: 'Play Harbor Lights' }).click();
    await expect(page.getByTestId('player-notice')).toHaveText('Skipped “Harbor Lights”: it could not be played.');
    await expect(page.getByTestId('now-playing')).toHaveText('Slow Current');
    await expect.poll(async () => (await audioState(page)).currentTime, { timeout: 15_000 }).toBeGreaterThan(0.5);
    await snap(page, 'player-skipped');
    await page.getByRole('button', { name: 'Pause' }).click();

    hide(files[1]!);
    const streams: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/canonical-stream/')) streams.push(r.url());
    });
    await page.getByRole('button', { name: 'Play Harbor Lights' }).click();
    await expect(page.getByRole('region', { name: 'Player' }).getByRole('alert')).toHaveText('None of the tracks in the queue could be played.');
    const tried = streams.length;
    await page.waitForTimeout(2000);
    expect(streams.length).toBe(tried);
    expect(tried).toBeGreaterThanOrEqual(2);
    expect(tried).toBeLessThanOrEqual(8);
    expect((await audioState(page)).paused).toBe(true);
  } finally {
    for (const file of files) if (fs.existsSync(`${file}.away`)) fs.renameSync(`${file}.away`, file);
    await page.close();
  }
});

test('connect an app: the address, what to enter, and an app key made, used and revoked', async ({ browser }) => {
  const page = await browser.newPage({ baseURL: baseUrl() });
  await signIn(page, LISTENER);
  await goByNav(page, 'Connect an app');
  await expect(page.getByRole('heading', { level: 1, name: 'Connect an app' })).toBeVisible();
  // The test server listens on 127.0.0.1 only: the page says so instead of offering an address phones cannot reach.
  await expect(page.getByRole('region', { name: 'Server address' })).toContainText('Tonearm listens on this computer only');
  await expect(page.getByTestId('connect-username')).toHaveText(LISTENER.username);
  await expect(page.getByRole('region', { name: 'What to enter in the app' })).toContainText('Legacy authentication');
  await expect(page.getByText('You have no app keys yet.')).toBeVisible();

  await page.getByLabel('Name of the app or device').fill('Phone');
  await page.getByRole('button', { name: 'Create key' }).click();
  const shown = page.getByTestId('new-app-key');
  await expect(shown).toHaveText(/^tsk_\S+$/);
  const key = (await shown.textContent())!;
  const ping = async () => (await (await page.request.get(`/rest/ping.view?apiKey=${encodeURIComponent(key)}&v=1.16.1&c=e2e&f=json`)).json())['subsonic-response'];
  expect(await ping()).toMatchObject({ status: 'ok' });
  await snap(page, 'connect-new-key');

  await page.reload();
  await expect(shown).toHaveCount(0);
  const keys = page.getByRole('list', { name: 'Your app keys' });
  await expect(keys.getByRole('listitem')).toHaveCount(1);
  await expect(keys).toContainText('Phone');
  await expect(keys).toContainText('last used');
  await keys.getByRole('button', { name: 'Revoke Phone' }).click();
  await page.getByRole('button', { name: 'Revoke now' }).click();
  await expect(page.getByText('You have no app keys yet.')).toBeVisible();
  expect(await ping()).toMatchObject({ status: 'failed', error: { code: 44 } });
  await page.close();
});
