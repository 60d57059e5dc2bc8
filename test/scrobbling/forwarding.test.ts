import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrobbleDeliveries } from '../../server/db/scrobbling.js';
import { SCROBBLE_QUEUE } from '../../server/domain/scrobbling/service.js';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { RestClient, waitForScans } from '../rest/harness.js';
import { configureLastFm, createUser, json, linkAll, scrobbleEnv, settle, startScrobbleFakes, until, type ScrobbleFakes } from './helpers.js';

let fakes: ScrobbleFakes;
let server: TestServer;
let dir: string;
let ann: string;
let bob: string;
const BOB = { username: 'bob', password: 'bob-password-1' };

beforeAll(async () => {
  fakes = await startScrobbleFakes();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-scrobble-'));
  const template = makeMp3Template(dir, 1);
  writeTaggedMp3(path.join(dir, 'music', 'Portishead', 'Dummy', '01 Mysterons.mp3'), template, {
    title: 'Mysterons', artist: 'Portishead', album: 'Dummy', albumArtist: 'Portishead', track: 1, date: '1994',
    musicbrainzRecordingId: '5d8fb3a2-6b6a-4a0b-9c1c-3a2b1f0e9d11',
  });
  server = await startTestServer({ musicDirs: [path.join(dir, 'music')], env: { ...scrobbleEnv(fakes), TONEARM_LIBRARY_WATCH: '0' } });
  await waitForScans(server);
  await configureLastFm(server, fakes);
  ann = await createUser(server, 'ann');
  bob = await createUser(server, BOB.username);
  await linkAll(server, fakes, ann, 'ann');
  await linkAll(server, fakes, bob, 'bob');
});
afterAll(async () => {
  await server?.stop();
  await fakes?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const received = (title: string, who: string) => ({
  lastfm: fakes.lastfm.scrobbles.filter((s) => s.params.track === title && s.user === who),
  listenbrainz: fakes.listenbrainz.submissions.filter((s) => s.listenType === 'single' && s.user === who && s.payload[0]!.track_metadata.track_name === title),
  koito: fakes.koito.submissions.filter((s) => s.listenType === 'single' && s.user === who && s.payload[0]!.track_metadata.track_name === title),
});
const allThree = (title: string, who: string) => {
  const r = received(title, who);
  return r.lastfm.length > 0 && r.listenbrainz.length > 0 && r.koito.length > 0 && r;
};

describe('a play reaches every linked service exactly once', () => {
  it('from the web player (POST /api/play-events), without waiting for them', async () => {
    const playedAt = Date.UTC(2026, 10, 20, 21, 30, 0);
    fakes.lastfm.faults.delayMs = 400;
    const started = Date.now();
    const res = await server.api('/api/play-events', {
      method: 'POST',
      token: ann,
      json: { title: 'Roads', artist: 'Portishead', album: 'Dummy', durationMs: 305_000, trackMbid: 'a1b2c3d4-0000-4000-8000-000000000001', playedAt },
    });
    expect(res.status).toBe(201);
    // The answer does not wait for the (slow) Last.fm.
    expect(Date.now() - started).toBeLessThan(400);
    const { id } = await json(res);
    const got = await until('the play at all three services', () => allThree('Roads', 'ann'));
    fakes.lastfm.faults.delayMs = 0;
    await settle();
    expect(received('Roads', 'ann').lastfm).toHaveLength(1);
    expect(received('Roads', 'ann').listenbrainz).toHaveLength(1);
    expect(received('Roads', 'ann').koito).toHaveLength(1);
    // Last.fm: the signed POST carried the play's facts (the fake checked the signature).
    expect(got.lastfm[0]!.params).toMatchObject({ method: 'track.scrobble', artist: 'Portishead', track: 'Roads', album: 'Dummy', timestamp: String(playedAt / 1000), duration: '305', mbid: 'a1b2c3d4-0000-4000-8000-000000000001' });
    // ListenBrainz and Koito: the same listen body.
    for (const sub of [got.listenbrainz[0]!, got.koito[0]!]) {
      expect(sub.payload).toEqual([
        {
          listened_at: playedAt / 1000,
          track_metadata: {
            artist_name: 'Portishead', track_name: 'Roads', release_name: 'Dummy',
            additional_info: { submission_client: 'Tonearm', duration_ms: 305_000, recording_mbid: 'a1b2c3d4-0000-4000-8000-000000000001' },
          },
        },
      ]);
    }
    const rows = scrobbleDeliveries.list(server.ctx.db).filter((d) => d.playEventId === id);
    expect(rows.map((r) => [r.service, r.status, r.attempts]).sort()).toEqual([['koito', 'delivered', 1], ['lastfm', 'delivered', 1], ['listenbrainz', 'delivered', 1]]);
    // Bob's links are his: nothing of Ann's play reached them.
    expect(received('Roads', 'bob')).toEqual({ lastfm: [], listenbrainz: [], koito: [] });
  });

  it('from /rest scrobble: submission=false is now playing, submission=true a scrobble', async () => {
    const rest = new RestClient(server, BOB);
    const found = await rest.ok('search3', { query: 'Mysterons', artistCount: 0, albumCount: 0 });
    const song = found.searchResult3.song[0];
    await rest.ok('scrobble', { id: song.id, submission: false });
    await until('now playing at all three', () =>
      fakes.lastfm.nowPlaying.some((n) => n.user === 'bob' && n.params.track === 'Mysterons') &&
      fakes.listenbrainz.submissions.some((s) => s.user === 'bob' && s.listenType === 'playing_now') &&
      fakes.koito.submissions.some((s) => s.user === 'bob' && s.listenType === 'playing_now'),
    );
    const np = fakes.listenbrainz.submissions.find((s) => s.user === 'bob' && s.listenType === 'playing_now')!;
    expect(np.payload[0]).not.toHaveProperty('listened_at');
    expect(np.payload[0]!.track_metadata).toMatchObject({ artist_name: 'Portishead', track_name: 'Mysterons', release_name: 'Dummy' });
    expect(fakes.lastfm.nowPlaying.find((n) => n.user === 'bob')!.params).toMatchObject({ method: 'track.updateNowPlaying', artist: 'Portishead', album: 'Dummy' });
    // Now playing is no scrobble.
    expect(received('Mysterons', 'bob')).toEqual({ lastfm: [], listenbrainz: [], koito: [] });

    const at = Date.UTC(2026, 10, 21, 8, 0, 0);
    await rest.ok('scrobble', { id: song.id, submission: true, time: at });
    const got = await until('the scrobble at all three services', () => allThree('Mysterons', 'bob'));
    await settle();
    expect(received('Mysterons', 'bob').lastfm).toHaveLength(1);
    expect(received('Mysterons', 'bob').listenbrainz).toHaveLength(1);
    expect(received('Mysterons', 'bob').koito).toHaveLength(1);
    expect(got.lastfm[0]!.params.timestamp).toBe(String(at / 1000));
    expect(got.listenbrainz[0]!.payload[0]!.track_metadata.additional_info).toMatchObject({ recording_mbid: '5d8fb3a2-6b6a-4a0b-9c1c-3a2b1f0e9d11' });
  });

  it('/rest scrobble answers before the deliveries are queued or sent; each service still gets the play once', async () => {
    const rest = new RestClient(server, BOB);
    const song = (await rest.ok('search3', { query: 'Mysterons', artistCount: 0, albumCount: 0 })).searchResult3.song[0];
    const bobId = server.ctx.db.prepare('SELECT id FROM users WHERE username = ?').pluck().get(BOB.username) as number;
    const at = Date.UTC(2026, 10, 23, 9, 15, 0);
    const seconds = String(at / 1000);
    const sent = () => ({
      lastfm: fakes.lastfm.scrobbles.filter((s) => s.user === 'bob' && s.params.timestamp === seconds).length,
      listenbrainz: fakes.listenbrainz.submissions.filter((s) => s.user === 'bob' && s.payload[0]!.listened_at === at / 1000).length,
      koito: fakes.koito.submissions.filter((s) => s.user === 'bob' && s.payload[0]!.listened_at === at / 1000).length,
    });
    const lastId = scrobbleDeliveries.list(server.ctx.db, { limit: 1 })[0]?.id ?? 0;
    const mine = () => scrobbleDeliveries.list(server.ctx.db, { userId: bobId }).filter((d) => d.id > lastId);
    // What the server has done at the moment it writes the answer to the player.
    const atAnswer: { rows: ReturnType<typeof mine>; jobs: number; sent: ReturnType<typeof sent> }[] = [];
    const queued = server.ctx.db.prepare("SELECT COUNT(*) FROM jobs WHERE queue = 'scrobbles'").pluck();
    const jobsBefore = queued.get() as number;
    const watch = (req: { url?: string }, res: { end: (...args: unknown[]) => unknown }) => {
      if (!req.url?.startsWith('/rest/scrobble')) return;
      const end = res.end.bind(res);
      res.end = (...args: unknown[]) => {
        atAnswer.push({ rows: mine(), jobs: (queued.get() as number) - jobsBefore, sent: sent() });
        return end(...args);
      };
    };
    server.http.prependListener('request', watch);
    try {
      await rest.ok('scrobble', { id: song.id, submission: true, time: at });
    } finally {
      server.http.off('request', watch);
    }
    expect(atAnswer).toHaveLength(1);
    // The outbox rows are committed (a restart from here would still deliver them), nothing else has happened yet.
    expect(atAnswer[0]!.rows.map((r) => [r.service, r.status, r.attempts, r.queueJobId]).sort()).toEqual([
      ['koito', 'pending', 0, null],
      ['lastfm', 'pending', 0, null],
      ['listenbrainz', 'pending', 0, null],
    ]);
    expect(atAnswer[0]!.jobs).toBe(0);
    expect(atAnswer[0]!.sent).toEqual({ lastfm: 0, listenbrainz: 0, koito: 0 });
    await until('the scrobble at all three services', () => {
      const s = sent();
      return s.lastfm > 0 && s.listenbrainz > 0 && s.koito > 0;
    });
    await settle();
    expect(sent()).toEqual({ lastfm: 1, listenbrainz: 1, koito: 1 });
    const rows = mine();
    expect(rows.map((r) => [r.service, r.status, r.attempts]).sort()).toEqual([['koito', 'delivered', 1], ['lastfm', 'delivered', 1], ['listenbrainz', 'delivered', 1]]);
    // One queue job each, recorded on its row.
    expect(new Set(rows.map((r) => r.queueJobId)).size).toBe(3);
    expect(rows.every((r) => r.queueJobId !== null)).toBe(true);
    expect((queued.get() as number) - jobsBefore).toBe(3);
  });

  it('the web player reports now playing with submission=false: sent to all three, not recorded', async () => {
    const before = (await json(await server.api('/api/play-events', { token: ann }))).total;
    const res = await server.api('/api/play-events', { method: 'POST', token: ann, json: { title: 'Pedestal', artist: 'Portishead', album: 'Dummy', submission: false } });
    expect(res.status).toBe(202);
    expect(await json(res)).toEqual({ success: true, nowPlaying: true });
    await until('now playing at all three', () =>
      fakes.lastfm.nowPlaying.some((n) => n.user === 'ann' && n.params.track === 'Pedestal') &&
      fakes.listenbrainz.submissions.some((s) => s.user === 'ann' && s.listenType === 'playing_now' && s.payload[0]!.track_metadata.track_name === 'Pedestal') &&
      fakes.koito.submissions.some((s) => s.user === 'ann' && s.listenType === 'playing_now' && s.payload[0]!.track_metadata.track_name === 'Pedestal'),
    );
    expect((await json(await server.api('/api/play-events', { token: ann }))).total).toBe(before);
    expect(received('Pedestal', 'ann')).toEqual({ lastfm: [], listenbrainz: [], koito: [] });
  });

  it('retries a service that asks to slow down (Retry-After), still once each', async () => {
    fakes.listenbrainz.faults.failNext(1, 429, { 'Retry-After': '1' });
    const res = await server.api('/api/play-events', { method: 'POST', token: ann, json: { title: 'Sour Times', artist: 'Portishead' } });
    expect(res.status).toBe(201);
    const { id } = await json(res);
    const lbRow = () => scrobbleDeliveries.list(server.ctx.db).find((d) => d.playEventId === id && d.service === 'listenbrainz');
    const first = await until('the refused first attempt', () => lbRow()?.attempts === 1 && lbRow());
    expect(first.status).toBe('pending');
    expect(first.lastError).toMatch(/rate limited/);
    // The next attempt is due after the announced second, not after the 30 s backoff.
    const runAt = server.ctx.db.prepare('SELECT run_at FROM jobs WHERE id = ?').pluck().get(first.queueJobId) as number;
    expect(runAt - server.clock.now()).toBeGreaterThanOrEqual(1000);
    expect(runAt - server.clock.now()).toBeLessThan(5000);
    server.clock.advance(1500);
    server.ctx.jobs.wake(SCROBBLE_QUEUE);
    await until('the retried play', () => allThree('Sour Times', 'ann'));
    await settle();
    const r = received('Sour Times', 'ann');
    expect([r.lastfm.length, r.listenbrainz.length, r.koito.length]).toEqual([1, 1, 1]);
    expect(lbRow()).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('unlinking stops forwarding to that service only', async () => {
    expect((await server.api('/api/scrobbling/koito/link', { method: 'DELETE', token: ann })).status).toBe(200);
    const res = await server.api('/api/play-events', { method: 'POST', token: ann, json: { title: 'Numb', artist: 'Portishead' } });
    expect(res.status).toBe(201);
    await until('Last.fm and ListenBrainz', () => {
      const r = received('Numb', 'ann');
      return r.lastfm.length > 0 && r.listenbrainz.length > 0;
    });
    await settle();
    expect(received('Numb', 'ann').koito).toEqual([]);
    const { id } = await json(res);
    expect(scrobbleDeliveries.list(server.ctx.db).filter((d) => d.playEventId === id).map((d) => d.service).sort()).toEqual(['lastfm', 'listenbrainz']);
  });

  it('a Last.fm session key Last.fm no longer accepts (error 9) fails at once; the others still get the play', async () => {
    for (const [key, user] of fakes.lastfm.sessions) if (user === 'bob') fakes.lastfm.sessions.delete(key);
    const res = await server.api('/api/play-events', { method: 'POST', token: bob, json: { title: 'Strangers', artist: 'Portishead' } });
    const { id } = await json(res);
    const rows = () => scrobbleDeliveries.list(server.ctx.db).filter((d) => d.playEventId === id);
    await until('settled', () => rows().length === 3 && rows().every((r) => r.status !== 'pending'));
    const byService = Object.fromEntries(rows().map((r) => [r.service, r]));
    expect(byService.lastfm).toMatchObject({ status: 'failed', attempts: 1 });
    expect(byService.lastfm!.lastError).toMatch(/invalid session key/);
    expect(byService.listenbrainz!.status).toBe('delivered');
    expect(byService.koito!.status).toBe('delivered');
    expect(received('Strangers', 'bob').lastfm).toEqual([]);
  });

  it('a user with no links records the play and forwards nothing', async () => {
    const carol = await createUser(server, 'carol');
    const before = fakes.lastfm.scrobbles.length + fakes.listenbrainz.submissions.length + fakes.koito.submissions.length;
    expect((await server.api('/api/play-events', { method: 'POST', token: carol, json: { title: 'Glory Box', artist: 'Portishead' } })).status).toBe(201);
    await settle();
    expect(fakes.lastfm.scrobbles.length + fakes.listenbrainz.submissions.length + fakes.koito.submissions.length).toBe(before);
  });
});
