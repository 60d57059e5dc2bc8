import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { expect, test, type Page } from '@playwright/test';
import { makeCoverImage, makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { catalogue, ids } from '../fixtures/catalogue.js';
import { startCoverArtFake, type CoverArtFake } from '../fakes/coverart/index.js';
import { startLidarrFake, type LidarrFake } from '../fakes/lidarr/index.js';
import { startMusicBrainzFake, type MusicBrainzFake } from '../fakes/musicbrainz/index.js';
import { openSignedIn, snap, startOwnServer, stopOwnServer, type ApiCall } from './helpers.js';

// The metadata pages against MusicBrainz and Cover Art Archive fakes, on a server of its own: the
// library holds one album tagged with MusicBrainz ids (Aurora Lane's "Dawn", two of its three tracks).
test.describe.configure({ mode: 'serial' });

let tmp: string;
let child: ChildProcess;
let url: string;
let token: string;
let call: ApiCall;
let page: Page;
let mb: MusicBrainzFake;
let coverart: CoverArtFake;
let lidarr: LidarrFake;
let mbClosed = false;

/** The head of a detail page (artist, release, library album): picture, title, credits, actions. */
const detailHead = (p: Page) => p.getByRole('main').locator('header.detail-head');

function makeLibrary(dir: string): string {
  const music = path.join(dir, 'music');
  const template = makeMp3Template(dir, 1);
  const dawn = catalogue[0]!.releaseGroups[0]!;
  dawn.releases[0]!.tracks.slice(0, 2).forEach((t, i) =>
    writeTaggedMp3(path.join(music, 'Aurora Lane', 'Dawn', `0${i + 1}.mp3`), template, {
      title: t.title,
      artist: 'Aurora Lane',
      albumArtist: 'Aurora Lane',
      album: 'Dawn',
      track: i + 1,
      date: '2019',
      genre: 'Dream Pop',
      musicbrainzRecordingId: t.recordingId,
      musicbrainzAlbumId: ids.relDawn,
      musicbrainzReleaseGroupId: ids.rgDawn,
      musicbrainzArtistId: ids.aurora,
      musicbrainzAlbumArtistId: ids.aurora,
    }),
  );
  return music;
}

test.beforeAll(async ({ browser }) => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-e2e-metadata-'));
  const music = makeLibrary(tmp);
  fs.mkdirSync(path.join(tmp, 'data'));
  mb = await startMusicBrainzFake(structuredClone(catalogue));
  coverart = await startCoverArtFake();
  coverart.setCover(ids.rgDawn, fs.readFileSync(makeCoverImage(path.join(tmp, 'dawn.png'), 'teal')));
  lidarr = await startLidarrFake({ rootFolderPath: path.join(tmp, 'lidarr'), commandStartMs: 5, commandRunMs: 10 });
  // Lidarr's own metadata knows Aurora Lane's albums by the same MusicBrainz ids.
  lidarr.state.catalogue.add({
    artistName: 'Aurora Lane',
    foreignArtistId: ids.aurora,
    albums: [
      { title: 'Dawn', foreignAlbumId: ids.rgDawn, tracks: ['First Light', 'Morning Tide', 'Glass Sky'] },
      { title: 'Dusk', foreignAlbumId: ids.rgDusk, tracks: ['Evening', 'Low Sun'] },
    ],
  });
  ({ child, url, token, call } = await startOwnServer(path.join(tmp, 'data'), {
    TONEARM_MUSIC_DIRS: music,
    TONEARM_LIBRARY_WATCH: 'false',
    TONEARM_MUSICBRAINZ_URL: mb.url,
    TONEARM_COVERART_URL: coverart.url,
    TONEARM_UPSTREAM_SPACING_MS: '0',
  }));
  await expect.poll(async () => (await call('/api/library/canonical?kind=tracks&pageSize=1')).body.total, { timeout: 30_000 }).toBe(2);
  page = await openSignedIn(browser, url, token);
});

test.afterAll(async () => {
  await page?.close();
  await stopOwnServer(child);
  await Promise.all([mbClosed ? null : mb?.close(), coverart?.close(), lidarr?.close()]);
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('search finds an artist and opens its page', async () => {
  await page.goto('/search');
  const box = page.getByRole('combobox', { name: 'Search your library and MusicBrainz, or paste a link' });
  await expect(box).toBeFocused();
  // One search as you type: the library's artist, album, tracks and playlist first, then the MusicBrainz artists it lacks.
  await box.fill('Auro');
  const suggestions = page.getByRole('listbox', { name: 'Suggestions' });
  const lane = suggestions.getByRole('option', { name: 'Aurora Lane Artist · in your library', exact: true });
  await expect(lane).toBeVisible();
  await expect(suggestions.getByRole('option', { name: 'Aurora Borealis Choir Artist · Choir', exact: true })).toBeVisible();
  await expect(suggestions.getByRole('group')).toHaveCount(4);
  const groups = await suggestions.getByRole('group').evaluateAll((gs) => gs.map((g) => document.getElementById(g.getAttribute('aria-labelledby')!)!.textContent));
  expect(groups).toEqual(['Artists', 'Albums', 'Tracks', 'Request from MusicBrainz']);
  await snap(page, 'metadata-00-suggestions');
  // The arrows move the active option while the focus stays in the box; Escape closes the list.
  await page.keyboard.press('ArrowDown');
  await expect(box).toHaveAttribute('aria-activedescendant', (await lane.getAttribute('id'))!);
  await expect(lane).toHaveAttribute('aria-selected', 'true');
  await expect(box).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(suggestions).toBeHidden();
  await expect(box).toBeFocused();
  await expect(box).toHaveValue('Auro');
  await expect(box).toHaveAttribute('aria-expanded', 'false');
  // Enter on the active option opens it: the library artist's page.
  await page.keyboard.press('ArrowDown');
  await expect(box).toHaveAttribute('aria-activedescendant', (await lane.getAttribute('id'))!);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/library\/artists\/\d+$/);
  await page.goBack();
  // A track found by its title plays (its album queued around it).
  await box.fill('Morning Tide');
  const tide = suggestions.getByRole('group', { name: 'Tracks' }).getByRole('option', { name: 'Morning Tide Track · Aurora Lane · Dawn', exact: true });
  await expect(tide).toBeVisible();
  await expect(suggestions.getByRole('group').first()).toHaveAccessibleName('Tracks');
  await page.keyboard.press('ArrowDown');
  await expect(tide).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('region', { name: 'Player' }).getByTestId('now-playing')).toHaveText('Morning Tide');
  await expect(suggestions).toBeHidden();
  // Enter with no active option shows every result: the library's first, then MusicBrainz's.
  await box.fill('Aurora Lane');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/search\?q=Aurora\+Lane$/);
  const library = page.getByRole('region', { name: 'In your library' });
  await expect(library.getByRole('list', { name: 'Artists', exact: true }).locator('.tile-title')).toHaveText(['Aurora Lane']);
  await expect(library.getByRole('list', { name: 'Albums', exact: true }).locator('.tile-title')).toHaveText(['Dawn']);
  const sections = await page.locator('section.search-section h2').allTextContents();
  expect(sections).toEqual(['In your library', 'Request from MusicBrainz']);
  const remote = page.getByRole('region', { name: 'Request from MusicBrainz' });
  const results = remote.getByRole('list', { name: 'Artists', exact: true });
  await expect(results.locator('.tile-title').first()).toHaveText('Aurora Lane');
  await expect(results.getByRole('listitem').first().getByText('In library', { exact: true })).toBeVisible();
  await snap(page, 'metadata-01-search');
  // Albums: the library's album is marked, the others can be requested.
  await page.getByRole('navigation', { name: 'Search in' }).getByRole('link', { name: 'Albums', exact: true }).click();
  await expect(page).toHaveURL(/scope=album/);
  await box.fill('Dawn');
  await page.keyboard.press('Enter');
  const albums = remote.getByRole('list', { name: 'Albums', exact: true });
  await expect(albums.locator('.tile-title').first()).toHaveText('Dawn');
  await expect(albums.getByRole('link', { name: 'Dawn in your library', exact: true })).toHaveAttribute('href', /^\/library\/albums\/\d+$/);
  await snap(page, 'metadata-01b-search-albums');
  // A pasted MusicBrainz link opens the release it names.
  await box.fill(`https://musicbrainz.org/release-group/${ids.rgDawn}`);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/release/${ids.rgDawn}$`));
  await expect(page.getByRole('heading', { level: 1, name: 'Dawn' })).toBeVisible();
  await page.goBack();
  await page.goto('/search?q=Aurora%20Lane');
  await page
    .getByRole('region', { name: 'Request from MusicBrainz' })
    .getByRole('list', { name: 'Artists', exact: true })
    .getByRole('link', { name: 'Aurora Lane Group · NO', exact: true })
    .click();
  await expect(page).toHaveURL(new RegExp(`/artist/${ids.aurora}$`));
  await expect(page.getByRole('heading', { level: 1, name: 'Aurora Lane' })).toBeVisible();
});

test('the library artist links to its artist page: releases by type, in-library marks, appearances', async () => {
  await page.goto('/library/artists');
  await page.getByRole('list', { name: 'Artists', exact: true }).getByRole('link', { name: 'Aurora Lane 1 album', exact: true }).click();
  await detailHead(page).getByRole('link', { name: 'All releases', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/artist/${ids.aurora}$`));
  await expect(page.getByRole('heading', { level: 1, name: 'Aurora Lane' })).toBeVisible();
  await expect(detailHead(page).getByText('Artist · Group', { exact: true })).toBeVisible();
  await expect(detailHead(page).getByRole('list', { name: 'Tags of Aurora Lane', exact: true }).getByRole('link')).toHaveText(['dream pop', 'shoegaze']);
  // Studio albums, singles and live albums each in their own section, as the server orders them.
  await expect(page.getByRole('heading', { level: 2 })).toContainText(['Albums', 'Singles', 'Live', 'Appears on']);
  const albums = page.getByRole('list', { name: 'Albums', exact: true });
  await expect(albums.locator('.tile-title')).toHaveText(['Dusk', 'Dawn']);
  await expect(page.getByRole('list', { name: 'Singles', exact: true }).locator('.tile-title')).toHaveText(['Tide']);
  await expect(page.getByRole('list', { name: 'Live', exact: true }).locator('.tile-title')).toHaveText(['Live at Nowhere']);
  await expect(page.getByRole('list', { name: 'Appears on', exact: true }).locator('.tile-title')).toHaveText(['Northern Songs']);
  // Dawn is in the library (linked to its library page); Dusk can be requested.
  const owned = albums.getByRole('link', { name: 'Dawn in your library', exact: true });
  await expect(owned).toBeVisible();
  await expect(albums.getByRole('button', { name: 'Request Dusk', exact: true })).toBeVisible();
  await expect(albums.getByRole('button', { name: 'Request Dawn' })).toHaveCount(0);
  await snap(page, 'metadata-02-artist');
  await owned.click();
  await expect(page.getByRole('heading', { level: 1, name: 'Dawn' })).toBeVisible();
  await expect(detailHead(page).getByText('Album', { exact: true })).toBeVisible();
  // …and the library album links back to its release page.
  await detailHead(page).getByRole('link', { name: 'Release details', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/release/${ids.rgDawn}$`));
});

test('a release in the library: cover, credits, tracks with durations and in-library marks', async () => {
  await page.goto(`/release/${ids.rgDawn}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Dawn' })).toBeVisible();
  await expect(page.locator('.detail-head img.art')).toHaveJSProperty('complete', true);
  await expect.poll(() => page.locator('.detail-head img.art').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  await expect(detailHead(page).getByRole('link', { name: 'Aurora Lane', exact: true })).toHaveAttribute('href', `/artist/${ids.aurora}`);
  const tracks = page.getByRole('table', { name: 'Tracks of Dawn' });
  await expect(tracks.locator('.track-title')).toHaveText(['First Light', 'Morning Tide', 'Glass Sky']);
  await expect(tracks.locator('.col-time')).toHaveText(['Time', '3:00', '3:01', '3:02']);
  await expect(tracks.locator('.col-owned .badge')).toHaveCount(2);
  await expect(page.getByRole('button', { name: 'Request' })).toHaveCount(0);
  await snap(page, 'metadata-03-release-owned');
});

test('requesting a release says in words that no download source is set up, with the way to settings', async () => {
  await page.goto(`/artist/${ids.aurora}`);
  await page.getByRole('list', { name: 'Albums', exact: true }).getByRole('link', { name: 'Dusk 2024', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/release/${ids.rgDusk}$`));
  await expect(page.getByRole('heading', { level: 1, name: 'Dusk' })).toBeVisible();
  await expect(page.getByRole('table', { name: 'Tracks of Dusk' }).locator('.track-title')).toHaveText(['Evening', 'Low Sun']);
  // Keyboard: the Request button is reachable and works from the keyboard.
  const request = detailHead(page).getByRole('button', { name: 'Request', exact: true });
  await request.focus();
  await page.keyboard.press('Enter');
  // Without Lidarr the request is Tonearm's own; with no source yet it is saved and waits for one.
  const alert = detailHead(page).getByRole('alert');
  await expect(alert).toContainText('Requested, but no download source is set up yet');
  await expect(alert.getByRole('link', { name: 'Settings', exact: true })).toHaveAttribute('href', '/settings/downloads');
  await snap(page, 'metadata-04-request-not-configured');
});

/** A signed-in page of a new user with these album permissions. */
async function userPage(username: string, addAlbum: boolean): Promise<Page> {
  const password = `${username} password`;
  const made = await call('/api/users', { method: 'POST', json: { username, password, role: 'user', permissions: { addAlbum } } });
  expect(made.status).toBe(201);
  const res = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  const { token: theirs } = (await res.json()) as { token: string };
  return openSignedIn(page.context().browser()!, url, theirs);
}

test('requests follow the addAlbum permission; a user without a download source is sent to an administrator', async () => {
  const listener = await userPage('listener', false);
  await listener.goto(`/release/${ids.rgDusk}`);
  await expect(listener.getByRole('heading', { level: 1, name: 'Dusk' })).toBeVisible();
  await expect(listener.getByRole('table', { name: 'Tracks of Dusk' })).toBeVisible();
  await expect(listener.getByRole('button', { name: /Request/ })).toHaveCount(0);
  await listener.goto(`/artist/${ids.aurora}`);
  await expect(listener.getByRole('list', { name: 'Singles' }).locator('.tile-title')).toHaveText(['Tide']);
  await expect(listener.getByRole('button', { name: /Request/ })).toHaveCount(0);
  await listener.close();

  const requester = await userPage('requester', true);
  await requester.goto(`/artist/${ids.aurora}`);
  const singles = requester.getByRole('list', { name: 'Singles', exact: true });
  await singles.getByRole('button', { name: 'Request Tide', exact: true }).click();
  const alert = singles.getByRole('alert');
  await expect(alert).toContainText('no download source is set up yet');
  await expect(alert).toContainText('Ask an administrator to set up a download source.');
  await expect(alert.getByRole('link')).toHaveCount(0);
  await requester.close();
});

test('with Lidarr connected the request goes through', async () => {
  const saved = await call('/api/settings', { method: 'POST', json: { integrations: { lidarr: { url: lidarr.url, apiKey: lidarr.apiKey } } } });
  expect(saved.status).toBe(200);
  await page.goto(`/release/${ids.rgDusk}`);
  await detailHead(page).getByRole('button', { name: 'Request', exact: true }).click();
  await expect(detailHead(page).getByRole('status')).toHaveText(/^Requested(: the download source is searching for it)?\.$/, { timeout: 20_000 });
  await expect.poll(() => lidarr.state.library.albumByMbId(ids.rgDusk)?.monitored).toBe(true);
});

test('MusicBrainz unreachable: a never-seen artist says so and offers a retry', async () => {
  await mb.close();
  mbClosed = true;
  await page.goto('/artist/00000000-0000-4000-8000-000000000999');
  const alert = page.getByRole('main').getByRole('alert');
  await expect(alert).toContainText("MusicBrainz can't be reached right now", { timeout: 30_000 });
  await expect(alert.getByRole('button', { name: 'Try again', exact: true })).toBeVisible();
});

test('phone layout: artist, release and search pages fit 390 px', async () => {
  const phone = await openSignedIn(page.context().browser()!, url, token, { viewport: { width: 390, height: 844 } });
  // Served from the metadata cache while MusicBrainz is down.
  await phone.goto(`/artist/${ids.aurora}`);
  await expect(phone.getByRole('heading', { level: 1, name: 'Aurora Lane' })).toBeVisible();
  const overflow = () => phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(await overflow()).toBeLessThanOrEqual(0);
  await snap(phone, 'metadata-05-artist-phone');
  await phone.goto(`/release/${ids.rgDawn}`);
  await expect(phone.getByRole('table', { name: 'Tracks of Dawn' }).locator('.track-title')).toHaveText(['First Light', 'Morning Tide', 'Glass Sky']);
  expect(await overflow()).toBeLessThanOrEqual(0);
  await snap(phone, 'metadata-06-release-phone');
  // The search box's suggestions fit too; with MusicBrainz down the library's part still comes, and the list says why there is no more.
  await phone.goto('/search');
  await phone.getByRole('combobox', { name: 'Search your library and MusicBrainz, or paste a link' }).fill('Morn');
  const list = phone.getByRole('listbox', { name: 'Suggestions' });
  await expect(list.getByRole('option', { name: 'Morning Tide Track · Aurora Lane · Dawn', exact: true }).first()).toBeVisible();
  await expect(phone.locator('.combo-popup').getByRole('status')).toHaveText(/MusicBrainz/);
  const popup = (await phone.locator('.combo-popup').boundingBox())!;
  expect(popup.x).toBeGreaterThanOrEqual(0);
  expect(popup.x + popup.width).toBeLessThanOrEqual(390);
  expect(await overflow()).toBeLessThanOrEqual(0);
  await snap(phone, 'metadata-07-search-phone');
  await phone.close();
});
