import { click, container, find, one, setOrigin, text, type as typeInto, waitFor, type El } from './dom.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFile } from 'music-metadata';
import { h, render, type FunctionComponent, type VNode } from 'preact';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAcoustIdFake, type AcoustIdFake } from '../fakes/acoustid/index.js';
import { makeMelodyFile } from '../fixtures/audio.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitForScans } from '../rest/harness.js';

/**
 * Issue 26, the web UI: the AcoustID card in Settings → Integrations saves its application key (and
 * reads "Not set up" until it has one), and Settings → Library's "Identify files without MusicBrainz
 * ids" points to that card while AcoustID is not set up, then starts a run against a real server and
 * the AcoustID fake, shows the run and the proposals per album, and accepts one album, which writes
 * the proposed ids into that file only.
 */

const renderer = (p: string) => import(/* @vite-ignore */ `../../renderer/src/${p}`);
type Session = { token: string; user: unknown };
interface Modules {
  session: { set(v: { token: string | null; user: unknown; notice: null }): void };
  router: { navigate(to: string): void };
  SettingsScreen: FunctionComponent<{ tab: string }>;
}

const paperMoons = { id: 'e0000000-0000-4000-8000-000000000001', title: 'Paper Moons', artists: [{ id: 'e0000000-0000-4000-8000-0000000000a1', name: 'Lanternfish' }], duration: 10 };

let dir: string;
let known: string;
let other: string;
let acoustid: AcoustIdFake;
let server: TestServer;
let m: Modules;
let admin: Session;
let root: El | null = null;

function settingsTab(tab: string): El {
  m.session.set({ token: admin.token, user: admin.user, notice: null });
  m.router.navigate(`/settings/${tab}`);
  root = container();
  render(h(m.SettingsScreen, { tab }) as VNode, root as unknown as Element);
  return root;
}
const card = (r: El, title: string) => {
  const found = find(r, 'section').find((s) => text(find(s, 'h2')[0] ?? null) === title);
  if (!found) throw new Error(`no card ${title}`);
  return found;
};
const input = (r: El, label: string) => {
  const l = find(r, 'label').find((x) => text(x) === label);
  if (!l) throw new Error(`no label ${label}`);
  return one(r, `#${l.getAttribute('for')}`);
};
const IDENTIFY = 'Identify files without MusicBrainz ids';

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'identify-screen-'));
  const music = path.join(dir, 'music');
  known = makeMelodyFile(path.join(music, 'Unknown Band', 'Tape Box', '01 track01.flac'), 'flac', { artist: 'Unknown Band', albumArtist: 'Unknown Band', album: 'Tape Box', title: 'track01', track: 1 }, { seed: 12, seconds: 10 });
  other = makeMelodyFile(path.join(music, 'Other Band', 'Reel', '01 song.flac'), 'flac', { artist: 'Other Band', albumArtist: 'Other Band', album: 'Reel', title: 'song', track: 1 }, { seed: 13, seconds: 10 });
  acoustid = await startAcoustIdFake();
  // AcoustID knows both recordings (from other encodings of the same audio).
  acoustid.seedFile(makeMelodyFile(path.join(dir, 'seed1.mp3'), 'mp3', {}, { seed: 12, seconds: 10 }), [paperMoons]);
  acoustid.seedFile(makeMelodyFile(path.join(dir, 'seed2.mp3'), 'mp3', {}, { seed: 13, seconds: 10 }), [
    { id: 'e0000000-0000-4000-8000-000000000002', title: 'Tide Song', artists: [{ id: 'e0000000-0000-4000-8000-0000000000a2', name: 'Reelers' }], duration: 10 },
  ]);
  server = await startTestServer({ musicDirs: [music], env: { TONEARM_ACOUSTID_URL: acoustid.url, TONEARM_LIBRARY_WATCH: '0', ALLOW_PRIVATE_TARGETS: '127.0.0.1' } });
  await waitForScans(server);
  setOrigin(server.url, '/settings/library');
  const s = (await (await server.api('/api/auth/login', { method: 'POST', json: { username: server.admin.username, password: server.admin.password } })).json()) as Session;
  admin = { token: s.token, user: s.user };
  const [session, router, screen] = await Promise.all([renderer('session.ts'), renderer('router.tsx'), renderer('settings/SettingsScreen.tsx')]);
  m = {
    session: (session as { session: Modules['session'] }).session,
    router: router as Modules['router'],
    SettingsScreen: (screen as { SettingsScreen: Modules['SettingsScreen'] }).SettingsScreen,
  };
}, 60_000);

afterEach(() => {
  if (root) render(null, root as unknown as Element);
  root = null;
});

afterAll(async () => {
  await server?.stop();
  await acoustid?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('AcoustID and identifying files', () => {
  it('without an AcoustID key the identify card points to the AcoustID card and cannot start', async () => {
    const r = settingsTab('library');
    const c = await waitFor(() => card(r, IDENTIFY));
    await waitFor(() => expect(text(c)).toContain('AcoustID is not set up. Add an AcoustID key in Settings → Integrations'));
    expect(one(c, 'a', 'Settings → Integrations').getAttribute('href')).toBe('/settings/integrations#integration-acoustid');
    expect(one(c, 'button', 'Start identifying').disabled).toBe(true);
    // The server's words naming the setting (the download checks' notes) point to the same card.
    const { inWords } = (await renderer('messages.ts')) as { inWords(message: string): string };
    expect(inWords('no AcoustID application key is set (Settings → integrations.acoustid.apiKey)')).toBe(
      'no AcoustID application key is set. Add an AcoustID application key in Settings → Integrations.',
    );
  });

  it('the AcoustID card reads "Not set up", saves the key masked, and then has its switch', async () => {
    const r = settingsTab('integrations');
    const c = await waitFor(() => card(r, 'AcoustID'));
    expect(text(c)).toContain('Not set up. Add the Application API key to use AcoustID.');
    expect(one(c, 'a', 'acoustid.org').getAttribute('href')).toBe('https://acoustid.org/new-application');
    expect(find(c, 'button', /^Test/)).toEqual([]); // the server has no AcoustID test
    expect(input(c, 'Application API key').getAttribute('type')).toBe('password');
    await typeInto(input(c, 'Application API key'), acoustid.apiKey);
    click(one(c, 'button', 'Save AcoustID'));
    await waitFor(() => expect(text(c)).toContain('AcoustID settings saved.'));
    expect(server.ctx.settings.get().integrations.acoustid).toEqual({ apiKey: acoustid.apiKey, enabled: true });
    await waitFor(() => expect(input(c, 'Application API key').value).not.toBe(acoustid.apiKey));
    const use = one(c, 'input[role="switch"]');
    expect(use.checked).toBe(true);
    expect(text(c)).not.toContain('Not set up');
  });

  it('starts a run, shows the proposals per album, and accepts one album only', async () => {
    const r = settingsTab('library');
    const c = await waitFor(() => card(r, IDENTIFY));
    await waitFor(() => expect(one(c, 'button', 'Start identifying').disabled).toBe(false));
    expect(text(c)).not.toContain('not set up');
    click(one(c, 'button', 'Start identifying'));
    // Both albums' proposals arrive (the run is read again while it runs), then the finished run.
    const albums = await waitFor(() => {
      expect(text(one(c, '[data-testid="identify-status"]'))).toContain('2 files checked, 2 matches proposed');
      const found = find(c, 'section.identify-album');
      expect(found.map((a) => a.getAttribute('aria-label')).sort()).toEqual(['Reel', 'Tape Box']);
      return found;
    }, 40_000);
    const tape = albums.find((a) => a.getAttribute('aria-label') === 'Tape Box')!;
    expect(text(tape)).toContain('01 track01.flac');
    expect(text(tape)).toContain('track01 — Unknown Band');
    expect(text(tape)).toContain('Paper Moons — Lanternfish');
    expect(text(tape)).toContain(`Recording ${paperMoons.id}`);
    expect(text(tape)).toContain(`Artist ${paperMoons.artists[0]!.id}`);
    // Proposed, nothing written yet.
    expect((await parseFile(known)).common.musicbrainz_recordingid).toBeUndefined();

    click(one(tape, 'button', 'Accept Tape Box'));
    await waitFor(() => expect(text(c)).toContain('Tape Box: 1 file written; the library reads them again.'), 20_000);
    await waitFor(() => expect(find(c, 'section.identify-album').map((a) => a.getAttribute('aria-label'))).toEqual(['Reel']));
    const tags = await parseFile(known);
    expect([tags.common.musicbrainz_recordingid, tags.common.title, tags.common.artist]).toEqual([paperMoons.id, 'Paper Moons', 'Lanternfish']);
    // The other album stays as it was, still proposed.
    expect((await parseFile(other)).common.musicbrainz_recordingid).toBeUndefined();
    const pending = (await (await server.api('/api/library/identify', { token: admin.token })).json()) as { albums: { albumTitle: string }[] };
    expect(pending.albums.map((a) => a.albumTitle)).toEqual(['Reel']);

    click(one(c, 'button', 'Reject Reel'));
    await waitFor(() => expect(text(c)).toContain('Reel: 1 proposal rejected'));
    await waitFor(() => expect(text(c)).toContain('No proposals are waiting.'));
    expect((await parseFile(other)).common.musicbrainz_recordingid).toBeUndefined();

    // Once the rescan has read the accepted file's ids, a new run has nothing left to identify.
    const trackMbid = () =>
      server.ctx.db.prepare('SELECT t.mbid FROM library_media_files f JOIN library_tracks t ON t.id = f.track_id WHERE f.path = ? AND f.available = 1').pluck().get(known);
    await waitFor(() => expect(trackMbid()).toBe(paperMoons.id), 30_000);
    click(one(c, 'button', 'Start identifying'));
    await waitFor(() => expect(text(one(c, '[data-testid="identify-empty"]'))).toBe('Nothing to identify: every library file has MusicBrainz ids or had its proposal rejected.'), 10_000);
  }, 90_000);
});
