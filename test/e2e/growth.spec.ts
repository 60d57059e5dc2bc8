import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { catalogue } from '../fixtures/catalogue.js';
import { startDeezerFake, type DeezerFake } from '../fakes/deezer/index.js';
import { startLastFmFake, type LastFmFake } from '../fakes/lastfm/index.js';
import { startListenBrainzFake, type ListenBrainzFake } from '../fakes/listenbrainz/index.js';
import { startMusicBrainzFake, type MusicBrainzFake } from '../fakes/musicbrainz/index.js';
import { flowWorld } from '../flows/helpers.js';
import { goByNav, openSignedIn, snap, startOwnServer, stopOwnServer, type ApiCall } from './helpers.js';

// The screens that grow a library, on a server of its own with Last.fm (the flow tests' world),
// ListenBrainz, Deezer and MusicBrainz fakes: Discover (first refresh, "Less like this"), Flows (a template, its
// schedule, the switch, deleting), Playlists (create, rename, generated artwork; a shared playlist
// imported from a file and exported), the Inbox (filled
// by the recommendations, with its nav badge), News (switched off here: no feed reaches the
// internet) and the Last.fm and Navidrome cards of Settings.
test.describe.configure({ mode: 'serial' });

let tmp: string;
let child: ChildProcess;
let url: string;
let token: string;
let call: ApiCall;
let page: Page;
let lastfm: LastFmFake;
let deezer: DeezerFake;
let mb: MusicBrainzFake;
let lb: ListenBrainzFake;

/** Lib A and Lib B, the library artists the Last.fm world recommends from, two tracks each. */
function makeLibrary(dir: string): string {
  const music = path.join(dir, 'music');
  const template = makeMp3Template(dir, 1);
  for (const artist of ['Lib A', 'Lib B'])
    for (const n of [1, 2])
      writeTaggedMp3(path.join(music, artist, 'First', `0${n}.mp3`), template, {
        title: `${artist} Song ${n}`,
        artist,
        albumArtist: artist,
        album: 'First',
        track: n,
        date: '2020',
        genre: 'Dream Pop',
      });
  return music;
}

const recommended = (): Locator => page.getByRole('list', { name: 'Recommended artists' });

/**
 * Waits for the server's own word that no discovery refresh runs for the admin (reading
 * /api/discover queues the first one): a loaded machine may take far longer than the UI's default wait.
 */
type DiscoverBody = { recommendations: { name: string }[]; provider: string; isUpdating: boolean; lastUpdated: string | null };
async function discoveryIdle(done: (body: DiscoverBody) => boolean = () => true): Promise<DiscoverBody> {
  let body: DiscoverBody | undefined;
  await expect
    .poll(async () => {
      body = (await call('/api/discover')).body as DiscoverBody;
      return !body.isUpdating && done(body);
    }, { timeout: 120_000, intervals: [250, 500, 1000] })
    .toBe(true);
  return body!;
}

test.beforeAll(async ({ browser }) => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-e2e-growth-'));
  const music = makeLibrary(tmp);
  fs.mkdirSync(path.join(tmp, 'data'));
  [lastfm, deezer, mb, lb] = await Promise.all([startLastFmFake(flowWorld()), startDeezerFake(), startMusicBrainzFake(structuredClone(catalogue)), startListenBrainzFake()]);
  ({ child, url, token, call } = await startOwnServer(path.join(tmp, 'data'), {
    TONEARM_MUSIC_DIRS: music,
    TONEARM_LIBRARY_WATCH: 'false',
    TONEARM_LASTFM_URL: lastfm.url,
    TONEARM_DEEZER_URL: deezer.url,
    TONEARM_MUSICBRAINZ_URL: mb.url,
    TONEARM_LISTENBRAINZ_URL: lb.url,
    TONEARM_UPSTREAM_SPACING_MS: '0',
    ALLOW_PRIVATE_TARGETS: '127.0.0.1',
  }));
  // Last.fm is set in the Settings screen by the tests; news off (its built-in feeds are on the
  // internet); flows' downloads stay queued.
  const saved = await call('/api/settings', { method: 'POST', json: { integrations: { news: { enabled: false } }, downloads: { worker: { running: false } } } });
  expect(saved.status).toBe(200);
  await expect.poll(async () => (await call('/api/library/canonical?kind=tracks&pageSize=1')).body.total, { timeout: 30_000 }).toBe(4);
  page = await openSignedIn(browser, url, token);
});

test.afterAll(async () => {
  await page?.close();
  await stopOwnServer(child);
  await Promise.all([lastfm?.close(), deezer?.close(), mb?.close(), lb?.close()]);
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('Discover without Last.fm: ListenBrainz only, and no recommendations yet', async () => {
  // The first look at Discover queues a ListenBrainz refresh; the page shows its result once it ends.
  expect((await discoveryIdle()).provider).toBe('listenbrainz');
  await page.goto('/library/artists');
  await goByNav(page, 'Discover');
  await expect(page.getByRole('heading', { name: 'Discover', level: 1 })).toBeVisible();
  await expect(page.getByText(/Without Last\.fm, recommendations come from ListenBrainz/)).toBeVisible();
  await expect(page.getByText('No recommendations yet')).toBeVisible();
  await expect(recommended()).toHaveCount(0);
  await snap(page, 'growth-00-discover-without-lastfm');
});

test('Settings → Integrations: the Last.fm card takes the API key', async () => {
  await goByNav(page, 'Settings');
  const sections = page.getByRole('navigation', { name: 'Settings sections' });
  await sections.getByRole('link', { name: 'Integrations' }).click();
  await expect(sections.getByRole('link', { name: 'Integrations' })).toHaveAttribute('aria-current', 'page');
  const card = page.getByRole('region', { name: 'Last.fm', exact: true });
  await card.getByLabel('API key').fill(lastfm.apiKey);
  await card.getByRole('button', { name: 'Save Last.fm' }).click();
  await expect(card.getByText('Last.fm settings saved.')).toBeVisible();
  await snap(page, 'growth-01-settings-lastfm');
  expect((await call('/api/settings')).body.integrations.lastfm).toMatchObject({ apiKey: '********', enabled: true });
});

test('Discover: the first refresh brings recommendations, and "Less like this" takes an artist out', async () => {
  const before = (await discoveryIdle()).lastUpdated;
  await goByNav(page, 'Discover');
  await expect(page.getByText(/Without Last\.fm/)).toHaveCount(0);
  const refresh = page.getByRole('button', { name: 'Refresh', exact: true });
  await expect(refresh).toBeEnabled();
  await refresh.click();
  // The server's refresh ends with Rec 1, Lib A's closest similar artist, as the first recommendation;
  // the page follows it (over /ws, or by asking the server again while it shows "Updating…").
  const after = await discoveryIdle((b) => b.lastUpdated !== before);
  expect(after.provider).toBe('lastfm');
  expect(after.recommendations.map((r) => r.name)).toContain('Rec 1');
  await expect(recommended().locator('li[data-artist="Rec 1"]')).toBeVisible({ timeout: 20_000 });
  await expect(refresh).toBeEnabled({ timeout: 20_000 });
  await expect(page.getByText(/recommendations from Last\.fm/)).toBeVisible();
  await snap(page, 'growth-02-discover-recommendations');
  const tile = recommended().locator('li[data-artist="Rec 1"]');
  await tile.getByRole('button', { name: 'Less like Rec 1' }).click();
  await expect(page.getByText(/Rec 1 (left your recommendations|and \d+ similar artists left your recommendations)/)).toBeVisible();
  await expect(recommended().locator('li[data-artist="Rec 1"]')).toHaveCount(0);
  await snap(page, 'growth-03-discover-less-like-this');
  // The server forgot it too: after a reload it is not back.
  await page.reload();
  await expect(recommended().locator('li').first()).toBeVisible();
  await expect(recommended().locator('li[data-artist="Rec 1"]')).toHaveCount(0);
});

test('Flows: Discover Weekly from its template, with its schedule; switched off and on; deleted', async () => {
  await goByNav(page, 'Flows');
  await expect(page.getByRole('heading', { name: 'Flows', level: 1 })).toBeVisible();
  await expect(page.getByText('No flows yet')).toBeVisible();
  await page.getByRole('button', { name: 'New flow' }).click();
  const create = page.getByRole('list', { name: 'Templates' }).getByRole('button', { name: 'Create Discover Weekly' });
  await expect(create).toBeEnabled();
  await snap(page, 'growth-04-flows-templates');
  await create.click();
  const flows = page.getByRole('list', { name: 'Your flows' });
  const flow = flows.locator('li[data-flow="Discover Weekly"]');
  await expect(flow.getByRole('heading', { name: 'Discover Weekly' })).toBeVisible();
  // The template's schedule: Fridays at midnight, in the browser's clock format (as every time on the screens).
  const midnight = await page.evaluate(() => new Date(2000, 0, 1, 0, 0).toLocaleTimeString(undefined, { timeStyle: 'short' }));
  await expect(flow.getByTestId('flow-schedule')).toHaveText(`Fridays at ${midnight}`);
  const enabled = flow.getByRole('switch', { name: 'Enabled: Discover Weekly' });
  await expect(enabled).toBeChecked();
  await snap(page, 'growth-05-flow-created');
  const id = (await call('/api/playlists/flows')).body.flows?.[0]?.id ?? null;
  await enabled.click();
  await expect(enabled).not.toBeChecked();
  await expect(flow.getByText('switched off')).toBeVisible();
  await expect.poll(async () => (await call('/api/playlists/flows')).body.flows?.find((f: { name: string }) => f.name === 'Discover Weekly')?.enabled).toBe(false);
  await snap(page, 'growth-06-flow-off');
  await enabled.click();
  await expect(enabled).toBeChecked();
  await expect(flow.getByText('switched off')).toHaveCount(0);
  await flow.getByRole('button', { name: 'Delete Discover Weekly' }).click();
  const confirm = flow.getByRole('alertdialog', { name: 'Delete Discover Weekly?' });
  await confirm.getByRole('button', { name: 'Delete for good' }).click();
  await expect(page.getByText('No flows yet')).toBeVisible();
  await snap(page, 'growth-07-flow-deleted');
  if (id) expect((await call(`/api/playlists/flows/${id}`)).status).toBe(404);
});

test('Playlists: a new static playlist, renamed, with generated artwork that loads', async () => {
  await goByNav(page, 'Playlists');
  await expect(page.getByRole('heading', { name: 'Playlists', level: 1 })).toBeVisible();
  await page.getByLabel('New playlist').fill('Road trip');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page).toHaveURL(/\/playlists\/\d+$/);
  await expect(page.getByRole('heading', { name: 'Road trip', level: 1 })).toBeVisible();
  await snap(page, 'growth-08-playlist-created');
  await page.getByRole('button', { name: 'Rename' }).click();
  const name = page.getByLabel('Playlist name');
  await expect(name).toBeFocused();
  await name.fill('Night drive');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('heading', { name: 'Night drive', level: 1 })).toBeVisible();
  await page.getByRole('group', { name: 'Artwork' }).getByRole('button', { name: 'Generate' }).click();
  await expect(page.getByText('Artwork generated from the album covers.')).toBeVisible();
  const art = page.getByRole('img', { name: 'Artwork of Night drive' });
  await expect(art).toBeVisible();
  // The picture really loaded (a broken image has no natural size).
  await expect.poll(() => art.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  await snap(page, 'growth-09-playlist-artwork');
  // Back on the list: the new name with its picture.
  await page.getByRole('link', { name: '← Playlists' }).click();
  const tile = page.getByRole('list', { name: 'Playlists' }).getByRole('link', { name: /Night drive/ });
  await expect(tile).toBeVisible();
  await expect.poll(() => tile.getByRole('img', { name: 'Artwork of Night drive' }).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  await snap(page, 'growth-10-playlists');
});

test('Playlists: a shared playlist imported from a JSPF file, its tracks owned and missing, exported as a file', async () => {
  await goByNav(page, 'Playlists');
  await expect(page.getByRole('heading', { name: 'Shared playlists', level: 2 })).toBeVisible();
  await expect(page.getByText('No shared playlists yet.')).toBeVisible();
  await page.getByRole('button', { name: 'Import a playlist…' }).click();
  const form = page.getByRole('form', { name: 'Import a shared playlist' });
  const jspf = { playlist: { title: 'Growth picks', track: [{ creator: 'Lib A', title: 'Lib A Song 1' }, { creator: 'Nobody Known', title: 'Missing Song' }] } };
  await form.getByLabel('Playlist file').setInputFiles({ name: 'picks.jspf', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(jspf)) });
  await snap(page, 'growth-10a-shared-import');
  await form.getByRole('button', { name: 'Import', exact: true }).click();
  await expect(page).toHaveURL(/\/playlists\/shared\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { name: 'Growth picks', level: 1 })).toBeVisible();
  // The library's track is there; the other waits for a download (the worker is stopped here).
  const row = (title: string) => page.getByRole('row').filter({ has: page.getByText(title, { exact: true }) });
  await expect(row('Lib A Song 1').getByText('In your library')).toBeVisible();
  await expect(row('Missing Song').getByText('Waiting to download')).toBeVisible();
  await expect(page.getByTestId('shared-counts')).toHaveText('2 tracks · 1 missing · Yours');
  await snap(page, 'growth-10b-shared-tracks');
  const download = page.waitForEvent('download');
  await page.getByRole('group', { name: 'Export' }).getByRole('button', { name: 'Export' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe('Growth picks.json');
  const exported = JSON.parse(fs.readFileSync(await file.path(), 'utf8'));
  expect(exported).toMatchObject({ format: 'tonearm-playlist', name: 'Growth picks' });
  expect(exported.tracks.map((t: { artistName: string; trackName: string }) => `${t.artistName} - ${t.trackName}`)).toEqual(['Lib A - Lib A Song 1', 'Nobody Known - Missing Song']);
  await expect(page.getByText('Exported as Growth picks.json.')).toBeVisible();
  // Back on the list: the tile with its counts.
  await page.getByRole('link', { name: '← Playlists' }).click();
  const tile = page.getByRole('list', { name: 'Shared playlists' }).getByRole('link', { name: /Growth picks/ });
  await expect(tile).toContainText('2 tracks · 1 missing · Yours');
  await snap(page, 'growth-10c-shared-list');
});

test('Inbox: the recommendations arrive as discoveries, with the unread badge in the nav', async () => {
  await goByNav(page, 'Inbox');
  await expect(page.getByRole('heading', { name: /^Inbox/, level: 1 })).toBeVisible();
  await page.getByRole('button', { name: 'Refresh', exact: true }).click();
  // The server's refresh first (a loaded machine may take long), then the page showing it.
  await expect.poll(async () => (await call('/api/inbox')).body.items.length, { timeout: 120_000, intervals: [250, 500, 1000] }).toBeGreaterThan(0);
  const items = page.getByRole('list', { name: 'Inbox items' });
  await expect(items.getByRole('listitem').first()).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole('heading', { level: 1 }).getByText(/\d+ unread/)).toBeVisible();
  const unread = (await call('/api/inbox')).body.unreadCount as number;
  expect(unread).toBeGreaterThan(0);
  await snap(page, 'growth-11-inbox');
  // The nav's badge (it polls): reload so it reads the new count.
  await page.reload();
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByLabel(`Inbox, ${unread} unread`)).toBeVisible({ timeout: 20_000 });
});

test('News: switched off, it points to the setting', async () => {
  await goByNav(page, 'News');
  await expect(page.getByRole('heading', { name: 'News', level: 1 })).toBeVisible();
  await expect(page.getByText('Artist news is switched off')).toBeVisible();
  await snap(page, 'growth-12-news');
});

test('Settings → Playback shows the Navidrome card', async () => {
  await goByNav(page, 'Settings');
  const sections = page.getByRole('navigation', { name: 'Settings sections' });
  await sections.getByRole('link', { name: 'Playback' }).click();
  await expect(sections.getByRole('link', { name: 'Playback' })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('region', { name: 'Navidrome (or any Subsonic server)' })).toBeVisible();
  await snap(page, 'growth-13-settings-playback');
});
