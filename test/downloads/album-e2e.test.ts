import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFile } from 'music-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogue, ids } from '../fixtures/catalogue.js';
import { startFakeProwlarr, type FakeProwlarr } from '../fakes/prowlarr/index.js';
import { startFakeSabnzbd, type FakeSabnzbd } from '../fakes/sabnzbd/index.js';
import { startMusicBrainzFake, type MusicBrainzFake } from '../fakes/musicbrainz/index.js';
import { startSlskdFake, type SlskdFake } from '../fakes/slskd/index.js';
import { startYtdlpFake, type YtdlpFake } from '../fakes/ytdlp/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { confirmClientFolders, createJob, setSettings, settled, waitFor } from './helpers.js';

/**
 * The whole self-managed path with no Lidarr: an album request resolves its track list through
 * MusicBrainz, becomes one job per track, the pipeline fetches them from slskd, verifies, tags and
 * files them, the library indexes them and they stream; and a track nobody shares on slskd or
 * Usenet comes from yt-dlp (the real binary, through the ytsearch wrapper).
 */

let dir: string;
let root: string;
let mb: MusicBrainzFake;
let slskd: SlskdFake;
let prowlarr: FakeProwlarr;
let sab: FakeSabnzbd;
let ytdlp: YtdlpFake;
let server: TestServer;

const api = (p: string, init: RequestInit & { json?: unknown } = {}) => server.api(p, { token: server.admin.token, ...init });

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'album-e2e-'));
  root = path.join(dir, 'downloads');
  // Dusk's tracks last a second here, like the files the slskd fake writes.
  const cat = structuredClone(catalogue);
  for (const t of cat[0]!.releaseGroups.find((rg) => rg.id === ids.rgDusk)!.releases[0]!.tracks) t.lengthMs = 1000;
  const duskFile = (n: number, title: string) => ({
    filename: `Music\\Aurora Lane\\Aurora Lane - Dusk (2024)\\0${n} - ${title}.mp3`,
    bitRate: 320,
    length: 1,
    tags: { artist: 'Aurora Lane', albumArtist: 'Aurora Lane', album: 'Dusk', title, track: n, date: '2024' },
  });
  [mb, slskd, prowlarr, sab, ytdlp] = await Promise.all([
    startMusicBrainzFake(cat),
    startSlskdFake({
      downloadsDir: path.join(dir, 'slskd'),
      users: [{ username: 'duskpeer', delayMs: 0, uploadSpeed: 5_000_000, queueLength: 0, hasFreeUploadSlot: true, files: [duskFile(1, 'Evening'), duskFile(2, 'Low Sun')] }],
      searchMs: 200,
      maxConcurrentSearches: 8,
    }),
    startFakeProwlarr(),
    startFakeSabnzbd({ completedDir: path.join(dir, 'sab') }),
    startYtdlpFake({ entries: [{ title: 'Aurora Lane - Tide (Official Audio)', uploader: 'Aurora Lane', duration: 3, file: 'tone.mp3', match: 'tide' }] }),
  ]);
  server = await startTestServer({ env: { TONEARM_MUSICBRAINZ_URL: mb.url, TONEARM_UPSTREAM_SPACING_MS: '0' }, ytdlp: ytdlp.bin });
  await setSettings(server, {
    downloads: { folderPath: root },
    integrations: {
      slskd: { url: slskd.url, apiKey: slskd.apiKey },
      // Usenet is set up, but no indexer has these tracks.
      prowlarr: { url: prowlarr.url, apiKey: prowlarr.apiKey },
      sabnzbd: { url: sab.url, apiKey: sab.apiKey, category: 'music' },
    },
  });
  await confirmClientFolders(server, 'slskd', 'sabnzbd');
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await Promise.all([mb?.close(), slskd?.close(), prowlarr?.close(), sab?.close(), ytdlp?.stop()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('self-managed downloads end to end', () => {
  it('an album request with no Lidarr: jobs from the track list, fetched from slskd, tagged, filed, indexed, streamable', async () => {
    const res = await api('/api/library/albums/request', {
      method: 'POST',
      json: { albumMbid: ids.rgDusk, albumName: 'Dusk', artistMbid: ids.aurora, artistName: 'Aurora Lane', managedBy: 'aurral' },
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { managedBy: string; requestId: string };
    expect(body.managedBy).toBe('aurral');
    const albumId = body.requestId.replace(/^aurral:/, '');

    const status = await waitFor(
      async () => {
        const s = (await (await api(`/api/library/albums/aurral/${albumId}/status`)).json()) as { status: string; counts: Record<string, number> };
        return s.status === 'complete' || s.status === 'failed' || s.status === 'blocked' ? s : undefined;
      },
      60_000,
      'the album to complete',
    );
    expect(status).toMatchObject({ status: 'complete', counts: { total: 2, complete: 2 } });

    const files = ['01 Evening.mp3', '02 Low Sun.mp3'].map((f) => path.join(root, 'Aurora Lane', 'Dusk', f));
    for (const f of files) expect(fs.existsSync(f)).toBe(true);
    const tags = await parseFile(files[1]!);
    expect(tags.common).toMatchObject({ title: 'Low Sun', artist: 'Aurora Lane', album: 'Dusk' });
    expect(tags.common.musicbrainz_releasegroupid ?? tags.common.musicbrainz_albumid).toBeTruthy();

    const trackId = await waitFor(
      () => server.ctx.db.prepare('SELECT track_id FROM library_media_files WHERE path = ? AND available = 1').pluck().get(files[0]) as number | undefined,
      20_000,
      'the filed track in the library',
    );
    const stream = await api(`/api/library/stream/${trackId}`);
    expect(stream.status).toBe(200);
    expect(Buffer.from(await stream.arrayBuffer()).equals(fs.readFileSync(files[0]!))).toBe(true);

    // Activity lists the request as available.
    const activity = (await (await api('/api/requests')).json()) as { id: string; status: string; kind: string }[];
    expect(activity.find((a) => a.id === body.requestId)).toMatchObject({ kind: 'album_requested', status: 'available' });
  }, 90_000);

  it('slskd down and nothing on Usenet: the track comes from yt-dlp', async () => {
    slskd.faults.down = true;
    try {
      const job = createJob(server, { artistName: 'Aurora Lane', trackName: 'Tide', albumName: 'Tide', trackNumber: 1, durationMs: 3000 });
      const done = await settled(server, job.id, ['done', 'failed', 'blocked'], 90_000);
      expect([done.status, done.downloadSource, done.error]).toEqual(['done', 'ytdlp', null]);
      expect(done.finalPath).toBe(path.join(root, 'Aurora Lane', 'Tide', '01 Tide.mp3'));
      const tried = JSON.parse(done.sourceState!) as { errors: string[] };
      expect(tried.errors.join(' ')).toMatch(/slskd/);
      expect(tried.errors.join(' ')).toMatch(/Usenet/);
      // Searched on Usenet before yt-dlp was asked.
      expect(prowlarr.requests.some((r) => r.path.includes('search'))).toBe(true);
    } finally {
      slskd.faults.down = false;
    }
  }, 100_000);
});
