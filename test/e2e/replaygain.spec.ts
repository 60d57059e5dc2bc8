import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { expect, test, type Page } from '@playwright/test';
import { makeRgFile } from '../fixtures/replayGain.js';
import { audioState, openSignedIn, snap, startOwnServer, stopOwnServer } from './helpers.js';

// The web player levels the volume with the library's ReplayGain (issue 26 §3), on a server of its own.
test.describe.configure({ mode: 'serial' });

let tmp: string;
let child: ChildProcess;
let page: Page;
let call: Awaited<ReturnType<typeof startOwnServer>>['call'];

/** The gain the player applies now (its gain node's value, mirrored on the audio element). */
const appliedGain = () => page.locator('audio[data-testid="audio"]').evaluate((el: HTMLAudioElement) => Number(el.dataset.replayGain));

test.beforeAll(async ({ browser }) => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-e2e-rg-'));
  const music = path.join(tmp, 'music');
  const album = { REPLAYGAIN_ALBUM_GAIN: '-1.00 dB', REPLAYGAIN_ALBUM_PEAK: '0.95' };
  makeRgFile(path.join(music, 'Gain Band', 'Levels', '01 Quiet One.mp3'), 'mp3', { title: 'Quiet One', album: 'Levels', artist: 'Gain Band', track: 1 }, {
    REPLAYGAIN_TRACK_GAIN: '+6.00 dB', REPLAYGAIN_TRACK_PEAK: '0.8', ...album,
  }, { seconds: 20 });
  makeRgFile(path.join(music, 'Gain Band', 'Levels', '02 Loud Two.mp3'), 'mp3', { title: 'Loud Two', album: 'Levels', artist: 'Gain Band', track: 2 }, {
    REPLAYGAIN_TRACK_GAIN: '-8.00 dB', REPLAYGAIN_TRACK_PEAK: '1.0', ...album,
  }, { seconds: 20 });
  fs.mkdirSync(path.join(tmp, 'data'));
  const server = await startOwnServer(path.join(tmp, 'data'), { TONEARM_MUSIC_DIRS: music, TONEARM_LIBRARY_WATCH: 'false', TONEARM_REPLAYGAIN_ANALYSIS: 'false' });
  child = server.child;
  call = server.call;
  await expect.poll(async () => (await server.call('/api/library/canonical?kind=tracks&pageSize=1')).body.total, { timeout: 30_000 }).toBe(2);
  page = await openSignedIn(browser, server.url, server.token);
});

test.afterAll(async () => {
  await page?.close();
  await stopOwnServer(child);
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('the player applies album gain to an album played in order, track gain on request, the peak preventing clipping', async () => {
  await page.goto('/library/albums');
  await page.getByRole('link', { name: /Levels/ }).click();
  await page.getByRole('button', { name: 'Play Quiet One' }).click();
  await expect(page.getByTestId('now-playing')).toHaveText('Quiet One');
  const mode = page.getByRole('combobox', { name: 'Volume levelling (ReplayGain)' });
  // Automatic (the default): an album in order gets the album gain, −1 dB.
  await expect(mode).toHaveValue('auto');
  await expect.poll(appliedGain).toBeCloseTo(10 ** (-1 / 20), 5);
  // It plays through the gain node.
  await expect.poll(async () => (await audioState(page)).currentTime, { timeout: 15_000 }).toBeGreaterThan(0.5);
  expect(await page.evaluate(() => (document.querySelector('audio') as HTMLAudioElement).paused)).toBe(false);
  await snap(page, 'replaygain-01-album-gain');

  // Track gain +6 dB would lift the 0.8 peak past full scale: limited to 1 / 0.8.
  await mode.selectOption('track');
  await expect.poll(appliedGain).toBeCloseTo(1.25, 5);
  await page.getByRole('button', { name: 'Next track' }).click();
  await expect(page.getByTestId('now-playing')).toHaveText('Loud Two');
  await expect.poll(appliedGain).toBeCloseTo(10 ** (-8 / 20), 5);

  await mode.selectOption('off');
  await expect.poll(appliedGain).toBe(1);
  // The choice is kept in this browser.
  await page.reload();
  expect(await page.evaluate(() => localStorage.getItem('tonearm.replayGain'))).toBe('off');
});

test('Settings → Library: the administrator turns on writing ReplayGain tags into the files', async () => {
  await page.goto('/settings/library');
  const box = page.getByRole('checkbox', { name: /Write ReplayGain tags into the music files/ });
  await expect(box).not.toBeChecked();
  await box.check();
  await expect.poll(async () => (await call('/api/settings')).body.library.writeReplayGainTags).toBe(true);
  await page.reload();
  await expect(page.getByRole('checkbox', { name: /Write ReplayGain tags into the music files/ })).toBeChecked();
  await snap(page, 'replaygain-02-settings');
});
