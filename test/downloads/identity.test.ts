import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeMelodyFile } from '../fixtures/audio.js';
import { startAcoustIdFake, type AcoustIdFake } from '../fakes/acoustid/index.js';
import { startMusicBrainzFake, type FakeArtist, type MusicBrainzFake } from '../fakes/musicbrainz/index.js';
import { startSlskdFake, type FakeSlskdFile, type SlskdFake } from '../fakes/slskd/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { confirmClientFolders, createJob, setSettings, settled } from './helpers.js';

/**
 * Issue 26 §1: every download gets an expected length (MusicBrainz by recording id, by release
 * and title, by artist and title) with its source, and a file whose real length differs from the
 * expected one or from what its source announced is held for review, even when the request
 * carried no length at all.
 */

const ids = {
  artist: 'a0000000-0000-4000-8000-000000000001',
  group: 'a0000000-0000-4000-8000-000000000002',
  release: 'a0000000-0000-4000-8000-000000000003',
  glass: 'a0000000-0000-4000-8000-000000000004',
  ember: 'a0000000-0000-4000-8000-000000000005',
  short: 'a0000000-0000-4000-8000-000000000006',
};

const catalogue: FakeArtist[] = [
  {
    id: ids.artist,
    name: 'Marble Coast',
    releaseGroups: [
      {
        id: ids.group,
        title: 'Breakwater',
        primaryType: 'Album',
        firstReleaseDate: '2020-05-01',
        releases: [
          {
            id: ids.release,
            title: 'Breakwater',
            tracks: [
              { id: 't1', recordingId: ids.glass, title: 'Glass Harbor', lengthMs: 203_000 },
              { id: 't2', recordingId: ids.ember, title: 'Ember Tide', lengthMs: 187_000 },
              { id: 't3', recordingId: ids.short, title: 'One Second', lengthMs: 1_000 },
            ],
          },
        ],
      },
    ],
  },
];

const file = (name: string, length: number, title: string, album = 'Breakwater'): FakeSlskdFile => ({
  filename: `@@share\\Marble Coast\\Marble Coast - ${album}\\${name}.mp3`,
  bitRate: 320,
  length,
  tags: { artist: 'Marble Coast', albumArtist: 'Marble Coast', album, title },
});

const sound = {
  lantern: 'b0000000-0000-4000-8000-000000000001',
  wrongSong: 'b0000000-0000-4000-8000-000000000002',
  tideClock: 'b0000000-0000-4000-8000-000000000003',
};

let dir: string;
let acoustid: AcoustIdFake;
let mb: MusicBrainzFake;
let slskd: SlskdFake;
let server: TestServer;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'download-identity-'));
  // Real audio of distinct melodies: what the peer sends, and (re-encoded) what AcoustID was seeded with.
  const audio = path.join(dir, 'audio');
  const wrongMelody = makeMelodyFile(path.join(audio, 'lantern-sent.mp3'), 'mp3', { artist: 'Marble Coast', title: 'Lantern Song', album: 'Breakwater' }, { seed: 2, seconds: 12 });
  const tideMelody = makeMelodyFile(path.join(audio, 'tide-sent.mp3'), 'mp3', { artist: 'DJ Nobody', title: 'Tide Clock Tower' }, { seed: 3, seconds: 12 });
  acoustid = await startAcoustIdFake();
  acoustid.seedFile(makeMelodyFile(path.join(audio, 'wrong.flac'), 'flac', {}, { seed: 2, seconds: 12 }), [
    { id: sound.wrongSong, title: 'Wrong Song', artists: [{ id: 'c0000000-0000-4000-8000-000000000001', name: 'Other Band' }], duration: 12 },
  ]);
  acoustid.seedFile(makeMelodyFile(path.join(audio, 'tide.flac'), 'flac', {}, { seed: 3, seconds: 12 }), [
    { id: sound.tideClock, title: 'Tide Clock Tower', artists: [{ id: ids.artist, name: 'Marble Coast' }], duration: 12 },
  ]);
  mb = await startMusicBrainzFake(catalogue);
  slskd = await startSlskdFake({
    downloadsDir: path.join(dir, 'slskd'),
    searchMs: 150,
    users: [
      {
        username: 'coastpeer',
        delayMs: 0,
        uploadSpeed: 2_000_000,
        queueLength: 0,
        hasFreeUploadSlot: true,
        // Every file sent is 1 s of audio (the fake's template); `length` is what the peer announces.
        files: [
          file('01 - Glass Harbor', 1, 'Glass Harbor'),
          file('02 - Ember Tide', 1, 'Ember Tide'),
          file('03 - One Second', 1, 'One Second'),
          file('Drift Signal', 203, 'Drift Signal', 'Unlisted'),
          file('Quiet Pier', 1, 'Quiet Pier', 'Unlisted'),
          // Tags say the right song; the sound is another one.
          { ...file('Marble Coast - Lantern Song', 12, 'Lantern Song'), audioFile: wrongMelody },
          // Tags (and a name without the artist) look wrong; the sound is the requested recording.
          { filename: '@@share\\Incoming\\01 - Tide Clock Tower.mp3', bitRate: 320, length: 12, tags: { title: 'Tide Clock Tower', artist: 'DJ Nobody' }, audioFile: tideMelody },
        ],
      },
    ],
  });
  fs.mkdirSync(path.join(dir, 'slskd'), { recursive: true });
  server = await startTestServer({ env: { TONEARM_MUSICBRAINZ_URL: mb.url, TONEARM_ACOUSTID_URL: acoustid.url, TONEARM_UPSTREAM_SPACING_MS: '0' } });
  await setSettings(server, {
    downloads: { folderPath: path.join(dir, 'library'), worker: { durationToleranceSeconds: 5, minMatchScore: 0.7 } },
    integrations: { slskd: { url: slskd.url, apiKey: slskd.apiKey } },
  });
  await confirmClientFolders(server, 'slskd');
}, 30_000);

afterAll(async () => {
  await server?.stop();
  await Promise.all([mb?.close(), slskd?.close(), acoustid?.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('expected lengths', () => {
  it('holds a truncated download whose request had no length and no ids: the length comes from a MusicBrainz search', async () => {
    const job = createJob(server, { artistName: 'Marble Coast', trackName: 'Glass Harbor', albumName: 'Breakwater' });
    expect([job.durationMs, job.durationSource]).toEqual([null, null]);
    const held = await settled(server, job.id);
    expect(held.status).toBe('blocked');
    expect([held.durationMs, held.durationSource, held.fileDurationMs! < 2000]).toEqual([203_000, 'musicbrainz:search', true]);
    expect(held.blockReason).toMatch(/duration 0:01 differs from the expected 3:23/);
    expect(mb.requests.some((r) => r.path.endsWith('/recording') && /glass harbor/i.test(r.query.get('query') ?? ''))).toBe(true);

    // The review list shows the expected length, its source and the file's real length.
    const list = (await (await server.api('/api/playlists/jobs?status=blocked', { token: server.admin.token })).json()) as {
      id: string;
      expectedLength: { ms: number; source: string } | null;
      fileDurationMs: number | null;
      announcedDurationMs: number | null;
    }[];
    const shown = list.find((j) => j.id === String(job.id))!;
    expect(shown.expectedLength).toEqual({ ms: 203_000, source: 'musicbrainz:search' });
    expect(shown.fileDurationMs).toBeLessThan(2000);
    expect(shown.announcedDurationMs).toBe(1000);
  });

  it('asks MusicBrainz by recording id first, and by release and title when only the release is known', async () => {
    const byId = createJob(server, { artistName: 'Marble Coast', trackName: 'Ember Tide', recordingMbid: ids.ember });
    const heldById = await settled(server, byId.id);
    expect([heldById.status, heldById.durationMs, heldById.durationSource]).toEqual(['blocked', 187_000, 'musicbrainz:recording']);
    expect(mb.requests.some((r) => r.path.endsWith(`/recording/${ids.ember}`))).toBe(true);

    const byRelease = createJob(server, { artistName: 'Marble Coast', trackName: 'One Second', releaseMbid: ids.release });
    const done = await settled(server, byRelease.id);
    expect([done.status, done.durationMs, done.durationSource, done.error]).toEqual(['done', 1000, 'musicbrainz:release', null]);
    expect(mb.requests.some((r) => r.path.endsWith(`/release/${ids.release}`))).toBe(true);
  });

  it('holds a file whose real length differs from the one its source announced', async () => {
    // MusicBrainz does not know this track: only the peer's announcement (3:23) says the 1 s file is broken.
    const job = createJob(server, { artistName: 'Marble Coast', trackName: 'Drift Signal' });
    const held = await settled(server, job.id);
    expect([held.status, held.durationMs, held.durationSource]).toEqual(['blocked', null, 'none']);
    expect(held.blockReason).toMatch(/the file lasts 0:01, but slskd announced 3:23/);
  });

  it('keeps the length of the request, and files a file that matches it', async () => {
    const before = mb.requests.length;
    const job = createJob(server, { artistName: 'Marble Coast', trackName: 'Quiet Pier', durationMs: 1000 });
    expect(job.durationSource).toBe('request');
    const done = await settled(server, job.id);
    expect([done.status, done.durationMs, done.durationSource, done.fileDurationMs! < 2000]).toEqual(['done', 1000, 'request', true]);
    // No AcoustID key yet: the sound check is skipped, and the job says so.
    expect([done.identity, done.identityNote]).toEqual(['skipped', expect.stringMatching(/no AcoustID application key/)]);
    expect(mb.requests.slice(before).filter((r) => r.path.includes('/recording'))).toEqual([]);
  });
});

describe('acoustic fingerprints', () => {
  beforeAll(async () => {
    await setSettings(server, { integrations: { acoustid: { apiKey: acoustid.apiKey } } });
  });

  it('holds a download whose fingerprint names another recording, and says what it sounds like', async () => {
    const job = createJob(server, { artistName: 'Marble Coast', trackName: 'Lantern Song', albumName: 'Breakwater', durationMs: 12_000, recordingMbid: sound.lantern });
    const held = await settled(server, job.id);
    expect(held.status).toBe('blocked');
    expect([held.identity, held.identityRecordingMbid]).toEqual(['different', sound.wrongSong]);
    expect(held.blockReason).toMatch(/sounds like Other Band – Wrong Song \(AcoustID, score 1\.00\)/);
    const shown = (await (await server.api('/api/playlists/jobs?status=blocked', { token: server.admin.token })).json()) as { id: string; identity: { status: string; note: string } }[];
    expect(shown.find((j) => j.id === String(job.id))!.identity).toMatchObject({ status: 'different', note: expect.stringMatching(/sounds like Other Band – Wrong Song/) });
  });

  it('marks a download whose fingerprint names the requested recording verified, which outranks wrong tags', async () => {
    const lookups = acoustid.lookups;
    const job = createJob(server, { artistName: 'Marble Coast', trackName: 'Tide Clock Tower', durationMs: 12_000, recordingMbid: sound.tideClock });
    const done = await settled(server, job.id);
    expect([done.status, done.error, done.blockReason]).toEqual(['done', null, null]);
    expect([done.identity, done.identityRecordingMbid]).toEqual(['verified', sound.tideClock]);
    expect(acoustid.lookups).toBe(lookups + 1);

    // The same file's tags alone would have held it: without the key the check is skipped and the tags decide.
    await setSettings(server, { downloads: { worker: { existingFileMode: 'download' } }, integrations: { acoustid: { apiKey: '' } } });
    try {
      const again = createJob(server, { artistName: 'Marble Coast', trackName: 'Tide Clock Tower', durationMs: 12_000, recordingMbid: sound.tideClock });
      const held = await settled(server, again.id);
      expect(held.status).toBe('blocked');
      expect(held.identity).toBe('skipped');
      expect(held.identityNote).toMatch(/not checked by sound: no AcoustID application key is set/);
      expect(held.blockReason).toMatch(/tags "DJ Nobody – Tide Clock Tower" match "Marble Coast – Tide Clock Tower"/);
    } finally {
      await setSettings(server, { downloads: { worker: { existingFileMode: 'reuse' } }, integrations: { acoustid: { apiKey: acoustid.apiKey } } });
    }
  });
});
