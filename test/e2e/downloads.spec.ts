import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { startFakeNzbget, type FakeNzbget } from '../fakes/nzbget/index.js';
import { startFakeProwlarr, type FakeProwlarr } from '../fakes/prowlarr/index.js';
import { startFakeSabnzbd, type FakeSabnzbd } from '../fakes/sabnzbd/index.js';
import { defaultUsers, startSlskdFake, type FakeSlskdFile, type SlskdFake } from '../fakes/slskd/index.js';
import { goByNav, openSignedIn, snap, startOwnServer, stopOwnServer, type ApiCall } from './helpers.js';

// Self-managed downloads in the web UI, on a server of its own with slskd, Prowlarr, SABnzbd and
// NZBGet fakes: the Downloads settings (each source's test and save, the worker), the Downloads
// screen (live progress, cancel, retry, clear finished) and the review screen (reason, preview,
// approve, deny).
test.describe.configure({ mode: 'serial' });

let tmp: string;
let child: ChildProcess;
let url: string;
let token: string;
let call: ApiCall;
let page: Page;
let slskd: SlskdFake;
let prowlarr: FakeProwlarr;
let sabnzbd: FakeSabnzbd;
let nzbget: FakeNzbget;

const QUICK_TRANSFER_MS = 300;

const card = (name: string): Locator => page.getByRole('region', { name, exact: true });

/**
 * A peer sharing, in a various-artists folder, files whose tags name another artist: found only by
 * the pipeline's title-only query (titles of three words or more), then doubtful on verification
 * (tags "Karaoke Stars" for Copper Lanterns), so held for review.
 */
const doubtfulFiles = (): FakeSlskdFile[] =>
  ['Lights Over Water', 'Open Water Again'].map((title, i) => ({
    filename: `Music\\Various Artists\\Night Ferry\\0${i + 7} - ${title}.mp3`,
    bitRate: 320,
    length: 1,
    tags: { artist: 'Karaoke Stars', albumArtist: 'Various Artists', album: 'Night Ferry', title, track: i + 7, date: '2003' },
  }));

test.beforeAll(async ({ browser }) => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-e2e-downloads-'));
  const music = path.join(tmp, 'music');
  const completed = path.join(tmp, 'usenet-complete');
  fs.mkdirSync(music);
  fs.mkdirSync(completed);
  fs.mkdirSync(path.join(tmp, 'data'));
  // Velvet Harbors' album from a quick peer (good files); two Copper Lanterns titles only from the doubtful peer.
  const users = defaultUsers().filter((u) => u.username === 'quickpeer');
  users.push({ username: 'doubtful', delayMs: 0, uploadSpeed: 1_000_000, queueLength: 0, hasFreeUploadSlot: true, files: doubtfulFiles() });
  // Transfers are quick unless a test needs one under way (live progress: 4 s; cancel: 30 s).
  slskd = await startSlskdFake({ users, searchMs: 200, queueMs: 40, transferMs: QUICK_TRANSFER_MS, downloadsDir: path.join(tmp, 'slskd-downloads') });
  prowlarr = await startFakeProwlarr();
  sabnzbd = await startFakeSabnzbd({ completedDir: completed });
  nzbget = await startFakeNzbget({ completedDir: completed });
  ({ child, url, token, call } = await startOwnServer(path.join(tmp, 'data'), { TONEARM_MUSIC_DIRS: music, TONEARM_LIBRARY_WATCH: 'false', TONEARM_UPSTREAM_SPACING_MS: '0' }));
  page = await openSignedIn(browser, url, token);
});

test.afterAll(async () => {
  await page?.close();
  await stopOwnServer(child);
  await Promise.all([slskd?.close(), prowlarr?.close(), sabnzbd?.close(), nzbget?.close()]);
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('slskd: the test names a wrong key, passes with the right one, and the settings are saved', async () => {
  await page.goto('/settings/downloads');
  await expect(page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Downloads' })).toHaveAttribute('aria-current', 'page');
  const slskdCard = card('Soulseek (slskd)');
  await slskdCard.getByLabel('slskd address').fill(slskd.url);
  await slskdCard.getByLabel('API key').fill('not-the-key');
  await slskdCard.getByRole('button', { name: 'Test slskd' }).click();
  await expect(slskdCard.getByRole('alert')).toContainText('slskd rejected the API key');
  await slskdCard.getByLabel('API key').fill(slskd.apiKey);
  // The failure belongs to the values it was given: editing them clears it.
  await expect(slskdCard.getByRole('alert')).toHaveCount(0);
  await expect(slskdCard.locator('[data-folder="none"]')).toContainText('nothing is taken from slskd until you press Test slskd');
  await slskdCard.getByRole('button', { name: 'Test slskd' }).click();
  await expect(slskdCard.getByRole('status')).toContainText('Connected to slskd');
  // The test confirmed the folder slskd reports: the card says files are copied only from there.
  await expect(slskdCard.locator('[data-folder="confirmed"]')).toContainText(`Finished downloads are copied only from ${slskd.downloadsDir}`);
  await slskdCard.getByLabel('slskd priority').fill('15');
  await snap(page, 'downloads-00-slskd-settings');
  await slskdCard.getByRole('button', { name: 'Save Soulseek (slskd)' }).click();
  await expect(slskdCard.getByRole('status').filter({ hasText: 'settings saved' })).toBeVisible();
  const saved = (await call('/api/settings')).body.integrations.slskd;
  expect(saved).toMatchObject({ url: slskd.url, apiKey: '********', priority: 15, enabled: true });
  // Back from the server: the key stays masked, and testing the saved key still works.
  await page.reload();
  await expect(card('Soulseek (slskd)').getByLabel('slskd address')).toHaveValue(slskd.url);
  await expect(card('Soulseek (slskd)').getByLabel('API key')).toHaveValue('********');
  await card('Soulseek (slskd)').getByRole('button', { name: 'Test slskd' }).click();
  await expect(card('Soulseek (slskd)').getByRole('status')).toContainText('Connected to slskd');
  // Priority back to the default so slskd stays first.
  await card('Soulseek (slskd)').getByLabel('slskd priority').fill('10');
  await card('Soulseek (slskd)').getByRole('button', { name: 'Save Soulseek (slskd)' }).click();
  await expect.poll(async () => (await call('/api/settings')).body.integrations.slskd.priority).toBe(10);
});

test('Usenet: Prowlarr, SABnzbd and NZBGet each test their own fields and one Save keeps all three', async () => {
  await page.goto('/settings/downloads');
  const usenet = card('Usenet');
  const prowlarrBox = usenet.getByRole('group', { name: 'Prowlarr' });
  const sabBox = usenet.getByRole('group', { name: 'SABnzbd' });
  const nzbBox = usenet.getByRole('group', { name: 'NZBGet' });

  await prowlarrBox.getByLabel('Prowlarr address').fill(prowlarr.url);
  await prowlarrBox.getByLabel('API key').fill(prowlarr.apiKey);
  await prowlarrBox.getByRole('button', { name: 'Test Prowlarr' }).click();
  await expect(prowlarrBox.getByRole('status')).toContainText('Connected to Prowlarr');

  await sabBox.getByLabel('SABnzbd address').fill(sabnzbd.url);
  await sabBox.getByLabel('API key').fill('wrong');
  await sabBox.getByRole('button', { name: 'Test SABnzbd' }).click();
  await expect(sabBox.getByRole('alert')).toBeVisible();
  const sabFailure = await sabBox.getByRole('alert').innerText();
  expect(sabFailure).toMatch(/key/i);
  await sabBox.getByLabel('API key').fill(sabnzbd.apiKey);
  await sabBox.getByRole('button', { name: 'Test SABnzbd' }).click();
  await expect(sabBox.getByRole('status')).toContainText('Connected to SABnzbd');
  await expect(sabBox.getByRole('status')).toContainText('completed folder readable');
  await expect(sabBox.locator('[data-folder="confirmed"]')).toContainText(`copied only from ${sabnzbd.downloads.completedDir}`);

  await nzbBox.getByLabel('NZBGet address').fill(nzbget.url);
  await nzbBox.getByLabel('User name').fill(nzbget.username);
  await nzbBox.getByLabel('Password').fill(nzbget.password);
  await nzbBox.getByRole('button', { name: 'Test NZBGet' }).click();
  await expect(nzbBox.getByRole('status')).toContainText('Connected to NZBGet');
  // NZBGet stays switched off: saved, but not used.
  await nzbBox.getByRole('switch', { name: 'Use NZBGet' }).uncheck();
  await snap(page, 'downloads-01-usenet-settings');
  await usenet.getByRole('button', { name: 'Save Usenet' }).click();
  await expect(usenet.getByRole('status').filter({ hasText: 'Usenet settings saved' })).toBeVisible();
  const integrations = (await call('/api/settings')).body.integrations;
  expect(integrations.prowlarr).toMatchObject({ url: prowlarr.url, apiKey: '********', enabled: true });
  expect(integrations.sabnzbd).toMatchObject({ url: sabnzbd.url, apiKey: '********', enabled: true, priority: 20 });
  expect(integrations.nzbget).toMatchObject({ url: nzbget.url, username: nzbget.username, password: '********', enabled: false });
});

test('a number out of range is refused with the field named, before anything is sent', async () => {
  await page.goto('/settings/downloads');
  const ytdlp = card('yt-dlp');
  await ytdlp.getByLabel('Search results to consider').fill('50');
  await ytdlp.getByRole('button', { name: 'Save yt-dlp' }).click();
  await expect(ytdlp.getByRole('alert')).toHaveText('yt-dlp, search results to consider: enter a whole number from 1 to 20');
  await ytdlp.getByLabel('Search results to consider').fill('3');
  await ytdlp.getByRole('button', { name: 'Save yt-dlp' }).click();
  await expect.poll(async () => (await call('/api/settings')).body.integrations.ytdlp.searchResults).toBe(3);
});

test('the downloads folder is chosen and saved', async () => {
  await page.goto('/settings/downloads');
  const folder = path.join(tmp, 'my-downloads');
  fs.mkdirSync(folder);
  const box = card('Downloads folder');
  await box.getByLabel('Downloads folder').fill(folder);
  await box.getByRole('button', { name: 'Save folder' }).click();
  await expect(box.getByRole('status')).toHaveText('Downloads folder saved.');
  expect((await call('/api/settings')).body.downloads.folderPath).toBe(folder);
  // Back to the default (<data>/downloads) for the download steps below.
  await box.getByLabel('Downloads folder').fill('');
  await box.getByRole('button', { name: 'Save folder' }).click();
  await expect.poll(async () => (await call('/api/settings')).body.downloads.folderPath).toBe('');
});

test('yt-dlp: the test names a program that is not there', async () => {
  await page.goto('/settings/downloads');
  const ytdlp = card('yt-dlp');
  await ytdlp.getByLabel('Program').fill(path.join(tmp, 'no-such-yt-dlp'));
  await ytdlp.getByRole('button', { name: 'Test yt-dlp' }).click();
  await expect(ytdlp.getByRole('alert')).toContainText('no-such-yt-dlp');
});

test('Gotify: the test names an address where nothing answers', async () => {
  await page.goto('/settings/notifications');
  const gotify = card('Gotify');
  // A port that was free a moment ago: nothing listens there.
  const closed = await startFakeProwlarr();
  const deadUrl = closed.url;
  await closed.close();
  await gotify.getByLabel('Gotify address').fill(deadUrl);
  await gotify.getByLabel('Application token').fill('some-token');
  await gotify.getByRole('button', { name: 'Test Gotify' }).click();
  await expect(gotify.getByRole('alert')).toBeVisible();
  await expect(gotify.getByRole('alert')).not.toHaveText(/^Request failed/);
});

test('the worker: stop and start, and its settings are saved', async () => {
  await page.goto('/settings/downloads');
  const worker = card('Download worker');
  await expect(worker.getByTestId('worker-state')).toHaveText('Running');
  await worker.getByRole('button', { name: 'Stop the worker' }).click();
  await expect(worker.getByTestId('worker-state')).toHaveText('Stopped');
  expect((await call('/api/playlists/worker/settings')).body.running).toBe(false);
  await worker.getByRole('button', { name: 'Start the worker' }).click();
  await expect(worker.getByTestId('worker-state')).toHaveText('Running');
  await worker.getByLabel('Downloads at once').fill('2');
  await worker.getByLabel('Tracks already in the library').selectOption('download');
  await worker.getByLabel('Quality cutoff').selectOption('medium');
  await worker.getByRole('button', { name: 'Save worker settings' }).click();
  await expect(worker.getByRole('status').filter({ hasText: 'Worker settings saved.' })).toBeVisible();
  expect((await call('/api/playlists/worker/settings')).body).toMatchObject({ running: true, concurrency: 2, existingFileMode: 'download', qualityCutoff: 'medium' });
  await worker.getByLabel('Downloads at once').fill('9');
  await worker.getByRole('button', { name: 'Save worker settings' }).click();
  await expect(worker.getByRole('alert')).toHaveText('Downloads at once: enter a whole number from 1 to 8');
});

test('the Downloads screen is in the main navigation and starts empty', async () => {
  await page.goto('/library/artists');
  await goByNav(page, 'Downloads');
  await expect(page).toHaveURL(/\/downloads$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Downloads' })).toBeVisible();
  await expect(page.getByText('Nothing is downloading right now.')).toBeVisible();
  await expect(page.getByText('No download waits for your decision.')).toBeVisible();
  await expect(page.getByTestId('live-state')).toHaveText('Live');
});

test('a requested track shows live progress, then lands in History as done', async () => {
  await page.goto('/downloads');
  await expect(page.getByTestId('live-state')).toHaveText('Live');
  // Every value the track's bar shows, as the page renders it (the transfer takes about 4 s).
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { seenProgress: string[] }).seenProgress = seen;
    new MutationObserver(() => {
      const value = document.querySelector('progress[aria-label="Progress of Harbor Lights"]')?.getAttribute('data-progress');
      if (value !== null && value !== undefined && seen.at(-1) !== value) seen.push(value);
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-progress'] });
  });
  const history = page.getByRole('list', { name: 'Finished downloads' });
  slskd.state.options.transferMs = 4000;
  try {
    const requested = await call('/api/library/downloads/track', { method: 'POST', json: { artistName: 'Velvet Harbors', trackName: 'Harbor Lights', albumName: 'Tidewater' } });
    expect(requested.status).toBe(202);
    // Pushed over /ws, no reload: the track appears in Active, then downloads with a moving bar.
    const active = page.getByRole('list', { name: 'Active downloads' });
    await expect(active.getByText('Harbor Lights')).toBeVisible();
    const bar = active.getByRole('progressbar', { name: 'Progress of Harbor Lights' });
    await expect(bar).toBeVisible();
    await expect(active.getByTestId('job-progress-text')).toContainText(/Downloading from Soulseek \(slskd\) · \d+%|Checking the file|Adding to the library/, { timeout: 20_000 });
    await snap(page, 'downloads-02-active');
    await expect(history.getByText('Harbor Lights')).toBeVisible({ timeout: 30_000 });
  } finally {
    slskd.state.options.transferMs = QUICK_TRANSFER_MS;
  }
  await expect(history.locator('.job-row', { hasText: 'Harbor Lights' }).locator('.badge')).toHaveText('Done');
  await expect(history.locator('.job-row', { hasText: 'Harbor Lights' })).toContainText('From Soulseek (slskd)');
  await expect(page.getByText('Nothing is downloading right now.')).toBeVisible();
  // The bar moved while bytes arrived: at least one value strictly between 0 and 100 was shown.
  const seen = await page.evaluate(() => (window as unknown as { seenProgress: string[] }).seenProgress);
  expect(seen.some((v) => Number(v) > 0 && Number(v) < 100), `progress values shown: ${seen.join(', ')}`).toBe(true);
});

test('without the live socket the screen polls every 5 seconds', async ({ browser }) => {
  const polled = await browser.newPage({ baseURL: url });
  // Every /ws connection is refused: the screen must fall back to polling.
  await polled.routeWebSocket(/\/ws/, (ws) => ws.close({ code: 1011, reason: 'no socket in this test' }));
  await polled.goto('/');
  await polled.evaluate((t) => localStorage.setItem('tonearm.token', t), token);
  await polled.goto('/downloads');
  await expect(polled.getByTestId('live-state')).toHaveText('Updating every 5 seconds');
  await call('/api/library/downloads/track', { method: 'POST', json: { artistName: 'Velvet Harbors', trackName: 'Low Tide', albumName: 'Tidewater' } });
  await expect(polled.getByRole('list', { name: 'Finished downloads' }).getByText('Low Tide')).toBeVisible({ timeout: 40_000 });
  await polled.close();
});

test('a running download is cancelled from the screen, then retried', async () => {
  await page.goto('/downloads');
  // A long transfer, so the click always lands while the track is still downloading on a loaded machine.
  slskd.state.options.transferMs = 30_000;
  const active = page.getByRole('list', { name: 'Active downloads' });
  try {
    await call('/api/library/downloads/track', { method: 'POST', json: { artistName: 'Velvet Harbors', trackName: 'Salt and Iron', albumName: 'Tidewater' } });
    await active.getByRole('button', { name: 'Cancel Salt and Iron' }).click();
  } finally {
    slskd.state.options.transferMs = QUICK_TRANSFER_MS;
  }
  const history = page.getByRole('list', { name: 'Finished downloads' });
  const row = history.locator('.job-row', { hasText: 'Salt and Iron' });
  await expect(row.locator('.badge')).toHaveText('Cancelled');
  await expect(active.getByText('Salt and Iron')).toHaveCount(0);
  await snap(page, 'downloads-03-cancelled');
  await row.getByRole('button', { name: 'Retry Salt and Iron' }).click();
  await expect(page.getByRole('status').filter({ hasText: /Searching again for \d+ track/ })).toBeVisible();
  await expect(history.locator('.job-row', { hasText: 'Salt and Iron' }).locator('.badge')).toHaveText('Done', { timeout: 30_000 });
});

test('a doubtful file waits for review: the reason, the source, a preview, and Approve files it', async () => {
  // The review screen is open before the job is blocked: it appears there live.
  await page.goto('/review');
  await expect(page.getByText('Nothing to review. All clear!')).toBeVisible();
  await call('/api/library/downloads/track', { method: 'POST', json: { artistName: 'Copper Lanterns', trackName: 'Lights Over Water', albumName: 'Night Ferry' } });
  const item = page.getByRole('article', { name: 'Lights Over Water by Copper Lanterns' });
  await expect(item).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole('status').filter({ hasText: 'New download to review: Lights Over Water by Copper Lanterns.' })).toBeVisible();
  await expect(item.getByTestId('block-reason')).not.toHaveText('Held for review.');
  const reason = await item.getByTestId('block-reason').innerText();
  expect(reason.length).toBeGreaterThan(5);
  await expect(item.getByText('Soulseek (slskd)', { exact: true })).toBeVisible();
  await expect(item.getByText('Night Ferry', { exact: true })).toBeVisible();
  // The preview plays the held file with a stream token.
  const preview = item.getByTestId('review-preview');
  const src = await preview.getAttribute('src');
  expect(src).toMatch(/^\/api\/playlists\/staging-stream\/\d+\?st=/);
  const audio = await page.request.get(src!);
  expect(audio.status()).toBe(200);
  expect(audio.headers()['content-type']).toMatch(/^audio\//);
  expect((await audio.body()).length).toBeGreaterThan(1000);
  await preview.evaluate((el: HTMLAudioElement) => el.play());
  await expect.poll(() => preview.evaluate((el: HTMLAudioElement) => el.currentTime)).toBeGreaterThan(0.1);
  await snap(page, 'downloads-04-review');
  // The Downloads screen counts it under Needs review with the same reason.
  await page.goto('/downloads');
  await expect(page.getByRole('list', { name: 'Downloads to review' }).getByText(reason)).toBeVisible();
  await page.getByRole('link', { name: 'Review them' }).click();
  await expect(page).toHaveURL(/\/review$/);
  await page.getByRole('button', { name: 'Approve Lights Over Water' }).click();
  await expect(page.getByRole('status').filter({ hasText: /^Kept “Lights Over Water”: filed as / })).toBeVisible();
  await expect(page.getByRole('article', { name: 'Lights Over Water by Copper Lanterns' })).toHaveCount(0);
  await expect(page.getByText('Nothing to review. All clear!')).toBeVisible();
  const jobs = (await call('/api/playlists/jobs')).body as { trackName: string; status: string; finalPath: string | null }[];
  const approved = jobs.find((j) => j.trackName === 'Lights Over Water');
  expect(approved?.status).toBe('done');
  expect(approved?.finalPath && fs.existsSync(approved.finalPath)).toBe(true);
});

test('Deny deletes the held file and sends the job back to searching', async () => {
  await page.goto('/review');
  await call('/api/library/downloads/track', { method: 'POST', json: { artistName: 'Copper Lanterns', trackName: 'Open Water Again', albumName: 'Night Ferry' } });
  const item = page.getByRole('article', { name: 'Open Water Again by Copper Lanterns' });
  await expect(item).toBeVisible({ timeout: 30_000 });
  const held = ((await call('/api/playlists/jobs?status=blocked')).body as { trackName: string; stagingPath: string | null }[]).find((j) => j.trackName === 'Open Water Again');
  await item.getByRole('button', { name: 'Deny Open Water Again' }).click();
  await expect(page.getByRole('status').filter({ hasText: /^Denied “Open Water Again”/ })).toBeVisible();
  await expect(item).toHaveCount(0);
  if (held?.stagingPath) expect(fs.existsSync(held.stagingPath)).toBe(false);
  // The only peer with it was denied, so it ends failed (or searching), never blocked on the same file again.
  await expect
    .poll(async () => ((await call('/api/playlists/jobs')).body as { trackName: string; status: string }[]).find((j) => j.trackName === 'Open Water Again')?.status, { timeout: 30_000 })
    .toMatch(/^(pending|downloading|failed)$/);
});

test('Clear finished empties the history and keeps the files', async () => {
  await page.goto('/downloads');
  const history = page.getByRole('list', { name: 'Finished downloads' });
  await expect(history.locator('.job-row').first()).toBeVisible();
  const done = ((await call('/api/playlists/jobs')).body as { status: string; finalPath: string | null }[]).filter((j) => j.status === 'done' && j.finalPath);
  await page.getByRole('button', { name: 'Clear finished' }).click();
  await expect(page.getByRole('status').filter({ hasText: /^Cleared \d+ finished download/ })).toBeVisible();
  await expect(history.locator('.job-row', { hasText: 'Harbor Lights' })).toHaveCount(0);
  for (const j of done) expect(fs.existsSync(j.finalPath!)).toBe(true);
});
