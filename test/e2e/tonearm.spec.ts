import { expect, test, type Page } from '@playwright/test';
import { ADMIN, ADMIN_NEW_PASSWORD, audioState, baseUrl, envMusicDir, musicDir, snap, goByNav } from './helpers.js';

// One person's first day with Tonearm, in order: each step builds on the one before.
test.describe.configure({ mode: 'serial' });

let page: Page;
const frames: string[] = [];
let password = ADMIN.password;

const wsMessages = () =>
  frames.flatMap((f) => {
    try {
      return [JSON.parse(f) as { type: string; jobId?: string }];
    } catch {
      return [];
    }
  });

test.beforeAll(async ({ browser }) => {
  page = await browser.newPage({ baseURL: baseUrl() });
  page.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload))));
});

test.afterAll(async () => {
  await page.close();
});

async function token(): Promise<string | null> {
  return page.evaluate(() => localStorage.getItem('tonearm.token'));
}

test('onboarding from an empty data folder creates the administrator and signs in', async () => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Welcome! Let’s set up your library' })).toBeVisible();
  await page.getByLabel('User name').fill(ADMIN.username);
  await page.getByLabel('Password', { exact: true }).fill('short');
  await page.getByLabel('Repeat the password').fill('short');
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByRole('alert')).toHaveText('The password needs at least 8 characters.');
  await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
  await page.getByLabel('Repeat the password').fill(ADMIN.password);
  await snap(page, '01-onboarding-account');
  await page.getByRole('button', { name: 'Next' }).click();

  await expect(page.getByRole('heading', { name: 'Music folders' })).toBeVisible();
  await expect(page.getByTestId('fs-current')).not.toBeEmpty();
  // The folder of TONEARM_MUSIC_DIRS is shown as chosen already, marked as such, and cannot be removed here.
  const envFolders = page.getByRole('list', { name: 'Chosen music folders' });
  await expect(envFolders.getByRole('listitem')).toHaveText([`${envMusicDir()}From the environment (TONEARM_MUSIC_DIRS)`]);
  await expect(envFolders.getByRole('button', { name: /Remove/ })).toHaveCount(0);
  await expect(page.getByText('No music folder chosen yet.')).toHaveCount(0);
  await snap(page, '02-onboarding-folders');
  await page.getByRole('button', { name: 'Next', exact: true }).click();

  // Optional integrations: this server offers Lidarr and Navidrome; Lidarr is a local fake here.
  const steps = page.getByRole('list', { name: 'Setup steps' });
  await expect(steps.getByRole('listitem')).toHaveText(['Administrator account', 'Music folders', 'Lidarr (optional)', 'Navidrome (optional)', 'Ready']);
  await page.getByLabel('Lidarr address').fill(process.env.TONEARM_E2E_LIDARR_URL!);
  await page.getByLabel('API key').fill('wrong key');
  await page.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByRole('alert')).toBeVisible();
  await page.getByLabel('API key').fill(process.env.TONEARM_E2E_LIDARR_KEY!);
  await page.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByRole('status').filter({ hasText: /^Connected to / })).toBeVisible();
  const quality = page.getByLabel('Quality profile');
  await expect(quality.locator('option').first()).toBeAttached();
  const chosen = (await quality.locator('option').last().getAttribute('value'))!;
  await quality.selectOption(chosen);
  await snap(page, '03-onboarding-lidarr');
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByRole('heading', { name: 'Navidrome (optional)' })).toBeVisible();
  await page.getByRole('button', { name: 'Skip' }).click();
  await expect(page.getByRole('heading', { name: 'Ready' })).toBeVisible();
  await snap(page, '03-onboarding-ready');
  await page.getByRole('button', { name: 'Finish setup' }).click();
  await expect(page.getByText('No artists yet.')).toBeVisible();
  await expect(page).toHaveURL(/\/library\/artists$/);
  expect(await token()).toMatch(/^ey/);
  await snap(page, '04-library-empty');

  const settings = await page.request.get('/api/settings', { headers: { authorization: `Bearer ${await token()}` } });
  const lidarr = ((await settings.json()) as { integrations: { lidarr: Record<string, unknown> } }).integrations.lidarr;
  expect(lidarr).toMatchObject({ url: process.env.TONEARM_E2E_LIDARR_URL, apiKey: '********', qualityProfileId: Number(chosen) });
});

test('signing out and in again; a wrong password is refused with the server’s message', async () => {
  await page.getByRole('button', { name: 'Sign out (admin)' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  expect(await token()).toBeNull();
  await page.getByLabel('User name').fill(ADMIN.username);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toBeVisible();
  await snap(page, '05-login-refused');
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Library' })).toBeVisible();
  expect(await token()).toMatch(/^ey/);
});

test('adding a music folder scans it, with progress pushed over /ws', async () => {
  await goByNav(page, 'Settings');
  await expect(page).toHaveURL(/\/settings\/library$/);
  const envFolder = page.getByRole('list', { name: 'Chosen music folders' }).getByRole('listitem').filter({ hasText: envMusicDir() });
  await expect(envFolder).toContainText('From the environment (TONEARM_MUSIC_DIRS)');
  await expect(envFolder.getByRole('button')).toHaveCount(0);
  await page.getByRole('button', { name: 'Add a folder…' }).click();
  await page.getByLabel('Go to a folder path').fill(musicDir());
  await page.getByRole('button', { name: 'Go', exact: true }).click();
  await expect(page.getByTestId('fs-current')).toHaveText(musicDir());
  await expect(page.getByRole('button', { name: /Aurora Lane/ })).toBeVisible();
  await snap(page, '06-settings-folder-browser');
  await page.getByRole('button', { name: 'Add this folder' }).click();
  await expect(page.getByRole('list', { name: 'Chosen music folders' })).toContainText(musicDir());
  await page.getByRole('button', { name: 'Save folders' }).click();
  await expect(page.getByText('Folders saved.')).toBeVisible();

  const status = page.getByTestId('scan-status');
  await expect(status).toContainText('Scan completed', { timeout: 30_000 });
  await expect(status).toContainText('6 indexed');
  await snap(page, '07-settings-scan-completed');

  // An explicit rescan: a new job whose start and end arrive on the socket. Its bar is indeterminate
  // while files are still being found, then shows real progress out of the final total.
  await page.evaluate(() => {
    const seen: { phase: string | null; value: string | null; max: string | null }[] = [];
    (window as unknown as { scanBars: typeof seen }).scanBars = seen;
    new MutationObserver(() => {
      const bar = document.querySelector('[data-testid="scan-status"] progress');
      if (bar) seen.push({ phase: bar.getAttribute('data-phase'), value: bar.getAttribute('value'), max: bar.getAttribute('max') });
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  const before = wsMessages().filter((m) => m.type === 'library_scan_completed').length;
  await page.getByRole('button', { name: 'Rescan library' }).click();
  await expect.poll(() => wsMessages().filter((m) => m.type === 'library_scan_completed').length, { timeout: 30_000 }).toBeGreaterThan(before);
  await expect(status).toContainText('Scan completed');
  await expect(status).toContainText('6 unchanged');
  const progress = wsMessages().filter((m) => m.type === 'library_scan_progress') as { phase?: string; filesSeen?: number }[];
  expect(progress.at(-1)).toMatchObject({ phase: 'reading', filesSeen: 6 });
  const bars = await page.evaluate(() => (window as unknown as { scanBars: { phase: string | null; value: string | null; max: string | null }[] }).scanBars);
  expect(bars).toContainEqual({ phase: 'walking', value: null, max: null });
  expect(bars).toContainEqual(expect.objectContaining({ phase: 'reading', max: '6' }));
  expect(bars.findIndex((b) => b.phase === 'reading')).toBeGreaterThan(bars.findIndex((b) => b.phase === 'walking'));
  const types = new Set(wsMessages().map((m) => m.type));
  expect([...types]).toEqual(expect.arrayContaining(['connected', 'subscribed', 'library_scan_started', 'library_scan_completed']));
});

test('browsing artists, albums and tracks, with artwork', async () => {
  await goByNav(page, 'Library');
  const artists = page.getByRole('list', { name: 'Artists' });
  await expect(artists.getByRole('link')).toHaveText([/Aurora Lane/, /Basalt Choir/]);
  await expect(page.getByText('2 artists')).toBeVisible();
  await snap(page, '08-library-artists');

  await page.getByRole('navigation', { name: 'Library sections' }).getByRole('link', { name: 'Albums' }).click();
  const albums = page.getByRole('list', { name: 'Albums' });
  await expect(albums.getByRole('link')).toHaveCount(3);
  const cover = albums.getByRole('link', { name: /Morning Signals/ }).locator('img');
  await expect.poll(() => cover.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
  await snap(page, '09-library-albums');

  await page.getByRole('navigation', { name: 'Library sections' }).getByRole('link', { name: 'Artists' }).click();
  await artists.getByRole('link', { name: /Aurora Lane/ }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Aurora Lane' })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Albums' }).getByRole('link')).toHaveText([/Morning Signals/, /Night Ferry/]);
  await snap(page, '10-artist');

  await page.getByRole('link', { name: /Night Ferry/ }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Night Ferry' })).toBeVisible();
  await expect(page.getByRole('table', { name: 'Tracks of Night Ferry' }).locator('.track-title')).toHaveText(['Harbor Lights', 'Slow Current']);
  await snap(page, '11-album');
});

test('searching and filtering by genre', async () => {
  await page.goto('/library/tracks');
  await page.getByLabel('Search the library').fill('ridge');
  await expect(page).toHaveURL(/q=ridge/);
  await expect(page.getByText('1 track', { exact: true })).toBeVisible();
  await expect(page.getByRole('table').locator('.track-title')).toHaveText(['Ridge Line']);
  await snap(page, '12-search');

  await page.goto('/library/albums');
  await page.getByLabel('Genre').selectOption('Jazz');
  await expect(page).toHaveURL(/genre=Jazz/);
  await expect(page.getByRole('list', { name: 'Albums' }).getByRole('link')).toHaveText([/Night Ferry/]);
});

test('playing an album in the browser through a stream token, with seek, next and pause', async () => {
  await page.goto('/library/albums');
  await page.getByRole('link', { name: /Night Ferry/ }).click();
  await page.getByRole('button', { name: 'Play Harbor Lights' }).click();
  await expect(page.getByTestId('now-playing')).toHaveText('Harbor Lights');
  await expect.poll(async () => (await audioState(page)).currentTime, { timeout: 15_000 }).toBeGreaterThan(0.5);
  let state = await audioState(page);
  expect(state.error).toBeNull();
  expect(state.paused).toBe(false);
  expect(state.src).toMatch(/\/api\/library\/canonical-stream\/\d+\?st=/);
  await snap(page, '13-playing');

  await page.getByRole('slider', { name: 'Position' }).fill('5');
  await expect.poll(async () => (await audioState(page)).currentTime).toBeGreaterThanOrEqual(5);

  await page.getByRole('button', { name: 'Next track' }).click();
  await expect(page.getByTestId('now-playing')).toHaveText('Slow Current');
  await expect.poll(async () => (await audioState(page)).currentTime, { timeout: 15_000 }).toBeGreaterThan(0.5);
  await page.getByRole('button', { name: 'Pause' }).click();
  state = await audioState(page);
  expect(state.paused).toBe(true);
  expect(state.error).toBeNull();
});

test('a favorite track is kept across reloads', async () => {
  await page.getByRole('button', { name: 'Add Slow Current to favorites' }).click();
  await expect(page.getByRole('button', { name: 'Remove Slow Current from favorites' })).toHaveAttribute('aria-pressed', 'true');
  await goByNav(page, 'Favorites');
  await expect(page.getByRole('table', { name: 'Favorite tracks' }).locator('.track-title')).toHaveText(['Slow Current']);
  await page.reload();
  await expect(page.getByRole('table', { name: 'Favorite tracks' }).locator('.track-title')).toHaveText(['Slow Current']);
  await snap(page, '14-favorites');
});

test('a second user makes LAN auto-login ineligible, and the UI says why', async () => {
  await page.goto('/settings/users');
  await page.getByLabel('User name').fill('listener');
  await page.getByLabel('Password').fill('listener password');
  await page.getByRole('button', { name: 'Add user' }).click();
  await expect(page.getByRole('button', { name: 'Edit listener' })).toBeVisible();
  await page.getByRole('button', { name: 'Edit listener' }).click();
  await page.getByLabel('Add artists').uncheck();
  await page.getByLabel('Flows and review').check();
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
  await snap(page, '15-settings-users');

  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Security' }).click();
  await expect(page.getByTestId('lan-status')).toHaveText('LAN auto-login only works while there is exactly one account. This server has more than one, so it stays off.');
  await page.getByRole('switch').click();
  // Said in words: no reason code like (not_single_user).
  await expect(page.getByRole('alert')).toHaveText('LAN auto-login only works while there is exactly one account. This server has more than one, so it stays off.');
  await expect(page.getByRole('switch')).not.toBeChecked();
});

test('a changed setting persists after a reload', async () => {
  await page.getByRole('textbox', { name: 'Allowed origins' }).fill('http://dashboard.local:3000');
  await page.getByRole('button', { name: 'Save origins' }).click();
  await expect(page.getByText('Origins saved.')).toBeVisible();
  await page.reload();
  await expect(page.getByRole('textbox', { name: 'Allowed origins' })).toHaveValue('http://dashboard.local:3000');
});

test('rotating the API key stops the old key at once', async () => {
  await page.getByRole('button', { name: 'Show', exact: true }).click();
  const shown = page.getByTestId('api-key');
  await expect(shown).toHaveText(/^[0-9a-f]{64}$/);
  const oldKey = (await shown.textContent())!;
  expect((await page.request.get('/api/settings', { headers: { 'x-api-key': oldKey } })).status()).toBe(200);

  await page.getByRole('button', { name: 'Rotate key…' }).click();
  await page.getByRole('button', { name: 'Rotate now' }).click();
  await expect(page.getByText('A new key was made; the old one no longer works.')).toBeVisible();
  await expect(shown).not.toHaveText(oldKey);
  const newKey = (await shown.textContent())!;
  expect(newKey).toMatch(/^[0-9a-f]{64}$/);
  expect((await page.request.get('/api/settings', { headers: { 'x-api-key': oldKey } })).status()).toBe(401);
  expect((await page.request.get('/api/settings', { headers: { 'x-api-key': newKey } })).status()).toBe(200);
  await snap(page, '16-settings-security');
});

test('account: listening history and password', async () => {
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Account' }).click();
  await page.getByLabel('Service', { exact: true }).selectOption('listenbrainz');
  await page.getByLabel('User name on that service').fill('aurora');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByText('Listening history saved.')).toBeVisible();
  await page.reload();
  await expect(page.getByLabel('Service', { exact: true })).toHaveValue('listenbrainz');
  await expect(page.getByLabel('User name on that service')).toHaveValue('aurora');

  await page.getByLabel('Current password').fill(password);
  await page.getByLabel('New password', { exact: true }).fill(ADMIN_NEW_PASSWORD);
  await page.getByLabel('Repeat the new password').fill(ADMIN_NEW_PASSWORD);
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByText('Password changed.')).toBeVisible();
  password = ADMIN_NEW_PASSWORD;
  await snap(page, '17-settings-account');
});

test('the review screen the tray opens shows its state instead of an empty page', async () => {
  await page.goto('/review');
  await expect(page.getByRole('heading', { name: 'Review downloads' })).toBeVisible();
  const jobs = await page.request.get('/api/playlists/jobs?status=blocked', { headers: { authorization: `Bearer ${await token()}` } });
  if (jobs.status() === 404) await expect(page.getByText('Download review is not available in this build.')).toBeVisible();
  else await expect(page.getByText('Nothing to review. All clear!')).toBeVisible();
  await snap(page, '18-review');
});

test('a session the server no longer accepts sends you back to sign in with a message', async () => {
  const current = await token();
  const out = await page.request.post('/api/auth/logout', { headers: { authorization: `Bearer ${current}` } });
  expect(out.status()).toBe(200);
  await goByNav(page, 'Favorites');
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await expect(page.getByText('Your session expired, please sign in again')).toBeVisible();
  await snap(page, '19-session-expired');
  await page.getByLabel('User name').fill(ADMIN.username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Favorites' })).toBeVisible();
});

test('the dark theme is kept across reloads', async () => {
  await page.goto('/library/artists');
  await page.getByRole('button', { name: 'Switch to the dark theme' }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(page.getByRole('list', { name: 'Artists' }).getByRole('link')).toHaveCount(2);
  await snap(page, '20-library-dark');
  await page.goto('/library/albums/1');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await snap(page, '21-album-dark');
  await page.getByRole('button', { name: 'Switch to the light theme' }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
});

test('keyboard: the skip link comes first, and Enter on a track plays it', async () => {
  await page.goto('/library/tracks');
  await expect(page.getByRole('table')).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Tonearm home' })).toBeFocused();
  const play = page.getByRole('button', { name: 'Play First Light' });
  await play.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('now-playing')).toHaveText('First Light');
  await expect.poll(async () => (await audioState(page)).currentTime, { timeout: 15_000 }).toBeGreaterThan(0.3);
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Aurora Lane' }).first()).toBeFocused();
  await page.getByRole('button', { name: 'Pause' }).press('Enter');
  expect((await audioState(page)).paused).toBe(true);
});

test('a user who is not an administrator sees the library and only their account settings', async ({ browser }) => {
  const other = await browser.newPage({ baseURL: baseUrl() });
  await other.goto('/settings');
  await other.getByLabel('User name').fill('listener');
  await other.getByLabel('Password').fill('listener password');
  await other.getByRole('button', { name: 'Sign in' }).click();
  await expect(other).toHaveURL(/\/settings\/account$/);
  await expect(other.getByRole('navigation', { name: 'Settings sections' }).getByRole('link')).toHaveText(['Account']);
  await goByNav(other, 'Library');
  await expect(other.getByRole('list', { name: 'Artists' }).getByRole('link')).toHaveCount(2);
  await other.close();
});

test.describe('on a phone-sized screen', () => {
  test('sign in, browse, play and open settings without sideways scrolling', async ({ browser }) => {
    const phone = await browser.newPage({ baseURL: baseUrl(), viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    const noSideways = async () =>
      expect(await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await phone.goto('/');
    await expect(phone.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    await snap(phone, 'phone-01-sign-in');
    await phone.getByLabel('User name').fill(ADMIN.username);
    await phone.getByLabel('Password').fill(password);
    await phone.getByRole('button', { name: 'Sign in' }).click();
    await expect(phone.getByRole('list', { name: 'Artists' }).getByRole('link')).toHaveCount(2);
    await noSideways();
    await snap(phone, 'phone-02-artists');

    await phone.getByRole('link', { name: /Basalt Choir/ }).tap();
    await phone.getByRole('link', { name: /Granite Hymns/ }).tap();
    await expect(phone.getByRole('heading', { level: 1, name: 'Granite Hymns' })).toBeVisible();
    await phone.getByRole('button', { name: 'Play album' }).tap();
    await expect(phone.getByTestId('now-playing')).toHaveText('Stone Song');
    await expect.poll(async () => (await audioState(phone)).currentTime, { timeout: 15_000 }).toBeGreaterThan(0.5);
    expect((await audioState(phone)).error).toBeNull();
    await noSideways();
    await snap(phone, 'phone-03-album-playing');
    await phone.getByRole('button', { name: 'Pause' }).tap();

    await goByNav(phone, 'Settings', 'tap');
    await expect(phone.getByRole('heading', { name: 'Music folders' })).toBeVisible();
    await noSideways();
    await snap(phone, 'phone-04-settings');
    await phone.getByRole('link', { name: 'Security' }).tap();
    await expect(phone.getByTestId('api-key')).toBeVisible();
    await noSideways();
    await snap(phone, 'phone-05-security');
    await phone.close();
  });
});
