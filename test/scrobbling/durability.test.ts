import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { playEvents } from '../../server/db/libraryUserData.js';
import { scrobbleDeliveries } from '../../server/db/scrobbling.js';
import { SCROBBLE_QUEUE } from '../../server/domain/scrobbling/service.js';
import { startTestServer, TestClock, type TestServer } from '../helpers/server.js';
import { configureLastFm, createUser, json, linkAll, scrobbleEnv, settle, startScrobbleFakes, until, type ScrobbleFakes } from './helpers.js';

/** The outbox is durable: plays still owed when the server stops reach each service once after it starts again. */

let fakes: ScrobbleFakes;
let dataDir: string;
const servers: TestServer[] = [];

beforeAll(async () => {
  fakes = await startScrobbleFakes();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-scrobble-restart-'));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await fakes.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const setDown = (down: boolean) => {
  fakes.lastfm.faults.down = down;
  fakes.listenbrainz.faults.down = down;
  fakes.koito.faults.down = down;
};

it('stopped with the outbox full, a new server on the same data folder delivers each play once to each service', async () => {
  const clock = new TestClock();
  const first = await startTestServer({ dataDir, clock, env: scrobbleEnv(fakes) });
  servers.push(first);
  await configureLastFm(first, fakes);
  const token = await createUser(first, 'ann');
  await linkAll(first, fakes, token, 'ann');

  setDown(true);
  const titles = ['Wandering Star', 'It Could Be Sweet', 'Biscuit'];
  const ids: number[] = [];
  for (const [i, title] of titles.entries()) {
    const res = await first.api('/api/play-events', { method: 'POST', token, json: { title, artist: 'Portishead', playedAt: Date.UTC(2026, 10, 22, 20, i * 5) } });
    expect(res.status).toBe(201);
    ids.push((await json(res)).id);
  }
  // Every delivery was tried once, failed (the services are down) and waits for its next attempt.
  await until('nine failed first attempts', () => {
    const rows = scrobbleDeliveries.list(first.ctx.db);
    return rows.length === 9 && rows.every((d) => d.status === 'pending' && d.attempts === 1) && rows;
  });
  await first.stop();
  servers.pop();

  setDown(false);
  const second = await startTestServer({ dataDir, clock, env: scrobbleEnv(fakes) });
  servers.push(second);
  clock.advance(60_000);
  second.ctx.jobs.wake(SCROBBLE_QUEUE);
  await until('all nine delivered', () => scrobbleDeliveries.list(second.ctx.db).every((d) => d.status === 'delivered') || undefined, 15_000);
  await settle(500);

  for (const title of titles) {
    expect(fakes.lastfm.scrobbles.filter((s) => s.params.track === title && s.user === 'ann'), `Last.fm ${title}`).toHaveLength(1);
    expect(fakes.listenbrainz.submissions.filter((s) => s.payload[0]!.track_metadata.track_name === title), `ListenBrainz ${title}`).toHaveLength(1);
    expect(fakes.koito.submissions.filter((s) => s.payload[0]!.track_metadata.track_name === title), `Koito ${title}`).toHaveLength(1);
  }
  const rows = scrobbleDeliveries.list(second.ctx.db);
  expect(rows).toHaveLength(9);
  expect(new Set(rows.map((r) => `${r.playEventId}:${r.service}`)).size).toBe(9);
  expect(rows.every((r) => r.attempts === 2 && ids.includes(r.playEventId!))).toBe(true);
});

it('a play whose server stopped before its deliveries were queued is delivered once after the restart', async () => {
  // What a /rest/scrobble request writes before it answers: the play and its outbox rows, no queue job
  // yet (those come after the answer). Written here directly, as if the process ended right then.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-scrobble-undispatched-'));
  const clock = new TestClock();
  try {
    const first = await startTestServer({ dataDir: dir, clock, env: scrobbleEnv(fakes) });
    servers.push(first);
    await configureLastFm(first, fakes);
    const token = await createUser(first, 'dora');
    await linkAll(first, fakes, token, 'dora');
    const userId = first.ctx.db.prepare("SELECT id FROM users WHERE username = 'dora'").pluck().get() as number;
    const playedAt = Date.UTC(2026, 10, 24, 7, 0, 0);
    const play = { title: 'Undenied', artist: 'Portishead', album: null, durationMs: null, trackMbid: null, albumMbid: null, artistMbid: null, playedAt };
    const eventId = playEvents.record(first.ctx.db, userId, { ...play, trackId: null, source: 'test' }, clock.now());
    const ids = scrobbleDeliveries.insertForLinks(first.ctx.db, { userId, playEventId: eventId, kind: 'scrobble', play: JSON.stringify(play), lastfm: true }, clock.now());
    expect(ids).toHaveLength(3);
    // The same play again is not recorded twice.
    expect(scrobbleDeliveries.insertForLinks(first.ctx.db, { userId, playEventId: eventId, kind: 'scrobble', play: JSON.stringify(play), lastfm: true }, clock.now())).toEqual([]);
    await first.stop();
    servers.pop();
    const sent = () => ({
      lastfm: fakes.lastfm.scrobbles.filter((s) => s.user === 'dora' && s.params.track === 'Undenied').length,
      listenbrainz: fakes.listenbrainz.submissions.filter((s) => s.user === 'dora' && s.payload[0]!.track_metadata.track_name === 'Undenied').length,
      koito: fakes.koito.submissions.filter((s) => s.user === 'dora' && s.payload[0]!.track_metadata.track_name === 'Undenied').length,
    });
    expect(sent()).toEqual({ lastfm: 0, listenbrainz: 0, koito: 0 });

    const second = await startTestServer({ dataDir: dir, clock, env: scrobbleEnv(fakes) });
    servers.push(second);
    await until('all three delivered', () => {
      const rows = scrobbleDeliveries.list(second.ctx.db, { userId });
      return rows.length === 3 && rows.every((d) => d.status === 'delivered') && rows;
    });
    await settle(500);
    expect(sent()).toEqual({ lastfm: 1, listenbrainz: 1, koito: 1 });
    const rows = scrobbleDeliveries.list(second.ctx.db, { userId });
    expect(rows.every((r) => r.attempts === 1 && r.queueJobId !== null && r.playEventId === eventId)).toBe(true);
    await second.stop();
    servers.pop();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
