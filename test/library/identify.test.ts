import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFile } from 'music-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAcoustIdFake, type AcoustIdFake } from '../fakes/acoustid/index.js';
import { makeMelodyFile } from '../fixtures/audio.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitForScans } from '../rest/harness.js';

/**
 * Issue 26 §2, the library: "Identify files without MusicBrainz ids" fingerprints the library's
 * files whose tracks have no recording id, proposes the recording AcoustID names per album, writes
 * nothing until the proposal is accepted, and then writes the ids into the file's tags, which the
 * rescan reads.
 */

const paperMoons = { id: 'e0000000-0000-4000-8000-000000000001', title: 'Paper Moons', artists: [{ id: 'e0000000-0000-4000-8000-0000000000a1', name: 'Lanternfish' }], duration: 10 };

let dir: string;
let music: string;
let acoustid: AcoustIdFake;
let server: TestServer;
let known: string;
let unknown: string;
let tagged: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'library-identify-'));
  music = path.join(dir, 'music');
  const album = { artist: 'Unknown Band', albumArtist: 'Unknown Band', album: 'Tape Box' };
  known = makeMelodyFile(path.join(music, 'Unknown Band', 'Tape Box', '01 track01.flac'), 'flac', { ...album, title: 'track01', track: 1 }, { seed: 12, seconds: 10 });
  unknown = makeMelodyFile(path.join(music, 'Unknown Band', 'Tape Box', '02 track02.mp3'), 'mp3', { ...album, title: 'track02', track: 2 }, { seed: 13, seconds: 10 });
  // Already identified: never fingerprinted.
  tagged = makeMelodyFile(
    path.join(music, 'Lanternfish', 'Harbour', '01 Glow.flac'),
    'flac',
    { artist: 'Lanternfish', albumArtist: 'Lanternfish', album: 'Harbour', title: 'Glow', track: 1, musicbrainzRecordingId: 'e0000000-0000-4000-8000-000000000009' },
    { seed: 14, seconds: 10 },
  );
  acoustid = await startAcoustIdFake();
  // AcoustID was fed another encoding of the first file's audio.
  acoustid.seedFile(makeMelodyFile(path.join(dir, 'seed.mp3'), 'mp3', {}, { seed: 12, seconds: 10 }), [paperMoons]);
  server = await startTestServer({ musicDirs: [music], env: { TONEARM_ACOUSTID_URL: acoustid.url, TONEARM_LIBRARY_WATCH: '0' } });
  await waitForScans(server);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await acoustid?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const api = (p: string, init: RequestInit & { json?: unknown; token?: string } = {}) => server.api(p, { token: server.admin.token, ...init });
const trackMbidOf = (file: string) =>
  server.ctx.db.prepare('SELECT t.mbid FROM library_media_files f JOIN library_tracks t ON t.id = f.track_id WHERE f.path = ? AND f.available = 1').pluck().get(file) as
    | string
    | null
    | undefined;

interface Answer {
  run: { status: string; total: number; processed: number; proposed: number; progress: number; note: string | null } | null;
  albums: { albumId: number | null; albumTitle: string | null; proposals: { id: number; path: string; current: { title: string }; proposed: { recordingMbid: string; title: string; artistName: string | null } }[] }[];
}

describe('identify files without MusicBrainz ids', () => {
  it('is refused without an AcoustID key, and for non-administrators', async () => {
    const res = await api('/api/library/identify', { method: 'POST' });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: 'ACOUSTID_NOT_CONFIGURED', message: expect.stringMatching(/no AcoustID application key/) });
    expect((await server.api('/api/library/identify', { method: 'POST' })).status).toBe(401);
  });

  it('fingerprints the files without ids, proposes per album, and writes only what is accepted', async () => {
    const before = fs.readFileSync(known);
    await api('/api/settings', { method: 'POST', json: { integrations: { acoustid: { apiKey: acoustid.apiKey } } } });
    const started = await api('/api/library/identify', { method: 'POST' });
    expect(started.status).toBe(202);
    expect(((await started.json()) as { started: boolean; run: { total: number } })).toMatchObject({ started: true, run: { total: 2 } });

    let answer: Answer;
    const until = Date.now() + 30_000;
    for (;;) {
      answer = (await (await api('/api/library/identify')).json()) as Answer;
      if (answer.run?.status !== 'running' || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(answer.run).toMatchObject({ status: 'done', total: 2, processed: 2, proposed: 1, progress: 100, note: null });
    expect(acoustid.lookups).toBe(2);
    expect(answer.albums).toHaveLength(1);
    const [albumEntry] = answer.albums;
    expect(albumEntry!.albumTitle).toBe('Tape Box');
    expect(albumEntry!.proposals).toEqual([
      expect.objectContaining({ path: known, current: expect.objectContaining({ title: 'track01' }), proposed: expect.objectContaining({ recordingMbid: paperMoons.id, title: 'Paper Moons', artistName: 'Lanternfish' }) }),
    ]);
    // Proposed, not written.
    expect(fs.readFileSync(known).equals(before)).toBe(true);
    expect(trackMbidOf(known)).toBeNull();

    const accepted = await api(`/api/library/identify/albums/${albumEntry!.albumId}/accept`, { method: 'POST', json: {} });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ success: true, decided: 1, failed: [] });
    const tags = await parseFile(known);
    expect([tags.common.musicbrainz_recordingid, tags.common.title, tags.common.artist, tags.common.album]).toEqual([paperMoons.id, 'Paper Moons', 'Lanternfish', 'Tape Box']);
    expect(tags.format.duration).toBeGreaterThan(9);
    // The rescan reads the new ids.
    const until2 = Date.now() + 30_000;
    while (trackMbidOf(known) !== paperMoons.id && Date.now() < until2) await new Promise((r) => setTimeout(r, 100));
    expect(trackMbidOf(known)).toBe(paperMoons.id);
    expect(((await (await api('/api/library/identify')).json()) as Answer).albums).toEqual([]);
    // The file AcoustID did not know and the one that had ids are untouched.
    expect((await parseFile(unknown)).common.musicbrainz_recordingid).toBeUndefined();
    expect((await parseFile(tagged)).common.musicbrainz_recordingid).toBe('e0000000-0000-4000-8000-000000000009');

    // Nothing is pending any more: accepting again is a 404, a second run proposes nothing new.
    expect((await api(`/api/library/identify/albums/${albumEntry!.albumId}/accept`, { method: 'POST', json: {} })).status).toBe(404);
  });
});
