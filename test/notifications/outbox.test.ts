import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloads } from '../../server/db/downloads.js';
import { downloadAlbums } from '../../server/db/downloadAlbums.js';
import { notificationDeliveries, type DeliveryRow } from '../../server/db/notifications.js';
import type { DownloadService } from '../../server/domain/downloads/service.js';
import { NOTIFICATIONS_QUEUE } from '../../server/domain/notifications/service.js';
import { startFakeGotify, type FakeGotify } from '../fakes/gotify/index.js';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from '../fakes/webhook/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Issue 12 item 5: Gotify and webhook notifications of download events, through the retrying outbox. */

let server: TestServer;
let gotify: FakeGotify;
let hook: FakeWebhookReceiver;

const PUBLIC = 'http://tonearm.lan:3001';

beforeAll(async () => {
  [server, gotify, hook] = await Promise.all([startTestServer(), startFakeGotify(), startFakeWebhookReceiver()]);
  const res = await server.api('/api/settings', {
    method: 'POST',
    token: server.admin.token,
    json: {
      // No pipeline runs the jobs these tests create: only the transitions made here happen.
      downloads: { worker: { running: false } },
      integrations: { gotify: { url: gotify.url, token: gotify.appToken } },
      notifications: {
        publicUrl: PUBLIC,
        gotify: { events: ['job_blocked'], priority: 7 },
        webhooks: [
          {
            id: 'ha',
            name: 'Home Assistant',
            url: `${hook.url}/api/webhook/tonearm`,
            events: ['job_failed'],
            headers: { 'X-Token': 'hook-secret' },
            bodyTemplate: '{"text": "$artistName – $trackName failed: $reason", "job": "$jobId", "flow": "$flowPath"}',
          },
          { id: 'albums', name: 'Album feed', url: `${hook.url}/albums`, method: 'PUT', events: ['job_done', 'album_complete'] },
        ],
      },
    },
  });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await Promise.all([server.stop(), gotify.close(), hook.close()]);
});

const ctx = () => server.ctx;

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const deliveriesOf = (jobId: number) =>
  notificationDeliveries.list(ctx().db, 1000).filter((d) => (JSON.parse(d.vars) as { jobId: string }).jobId === String(jobId));

/** Waits until a delivery's queue job has settled a failed attempt and waits for its retry. */
async function failedAttempt(row: () => DeliveryRow | undefined, attempts: number): Promise<DeliveryRow> {
  return until(`attempt ${attempts} to fail`, () => {
    const d = row();
    if (!d || d.attempts !== attempts || d.queueJobId === null) return undefined;
    const job = ctx().jobsRepo.byId(d.queueJobId);
    return job?.status === 'pending' && job.attempts === attempts ? d : undefined;
  });
}

/** Moves the server's clock past the backoff (30 s × 2^(n-1), +20 % at most) and lets the queue look. */
function passBackoff(attempt: number) {
  server.clock.advance(30_000 * 2 ** (attempt - 1) * 1.2 + 1000);
  ctx().jobs.wake(NOTIFICATIONS_QUEUE);
}

function newJob(trackName: string, extra: Partial<Parameters<DownloadService['create']>[0]> = {}) {
  return ctx().downloads.create({ userId: null, artistName: 'Boards of Canada', trackName, albumName: 'Music Has the Right to Children', ...extra });
}

describe('Gotify notifications', () => {
  it('a blocked job sends one Gotify message with the placeholders filled', async () => {
    const job = newJob('Roygbiv');
    const before = gotify.messages.length;
    ctx().downloads.transition(job.id, { status: 'blocked', blockReason: 'Duration 3:01 differs from the expected 2:31', blockedAt: server.clock.now() });
    const [message] = (await gotify.waitForMessages(before + 1)).slice(before);
    expect(message).toMatchObject({
      title: 'Held for review: Boards of Canada – Roygbiv',
      message: `Duration 3:01 differs from the expected 2:31\n\nReview it: ${PUBLIC}/review?job=${job.id}`,
      priority: 7,
      extras: {
        'client::display': { contentType: 'text/markdown' },
        'client::notification': { click: { url: `${PUBLIC}/review?job=${job.id}` } },
      },
    });
    // The token travels in the header, never in a URL.
    expect(gotify.requests.filter((r) => r.method === 'POST').every((r) => r.via === 'header' && r.token === gotify.appToken)).toBe(true);
    const [delivery] = await until('the delivery to be recorded', () => deliveriesOf(job.id).find((d) => d.status === 'delivered') && deliveriesOf(job.id));
    expect(delivery).toMatchObject({ event: 'job_blocked', destination: 'gotify', status: 'delivered', attempts: 1, lastError: null });

    // More updates of the blocked job, and the outbox job run again (as after a crash), send nothing more.
    ctx().downloads.transition(job.id, { progress: 1 });
    ctx().jobs.enqueue(NOTIFICATIONS_QUEUE, { deliveryId: delivery!.id });
    await new Promise((r) => setTimeout(r, 300));
    expect(gotify.messages.filter((m) => m.title.endsWith('– Roygbiv'))).toHaveLength(1);
    expect(deliveriesOf(job.id)).toHaveLength(1);
  });

  it('a job blocked again after a deny is a new event and notifies again', async () => {
    const job = newJob('Turquoise Hexagon Sun');
    const service = ctx().downloads;
    service.transition(job.id, { status: 'blocked', blockReason: 'first file', blockedAt: server.clock.now() });
    await until('first message', () => gotify.messages.some((m) => m.title.endsWith('Turquoise Hexagon Sun')));
    service.transition(job.id, { status: 'pending', blockReason: null, blockedAt: null });
    server.clock.advance(1000);
    service.transition(job.id, { status: 'blocked', blockReason: 'second file', blockedAt: server.clock.now() });
    await until('second message', () => gotify.messages.filter((m) => m.title.endsWith('Turquoise Hexagon Sun')).length === 2);
    expect(gotify.messages.filter((m) => m.title.endsWith('Turquoise Hexagon Sun')).map((m) => m.message.split('\n')[0])).toEqual(['first file', 'second file']);
  });

  it('is retried while Gotify is down and delivered once it is back', async () => {
    await gotify.setDown(true);
    const job = newJob('Aquarius');
    ctx().downloads.transition(job.id, { status: 'blocked', blockReason: 'Low match score', blockedAt: server.clock.now() });
    const first = await failedAttempt(() => deliveriesOf(job.id)[0], 1);
    expect(first.status).toBe('pending');
    // Refused, or reset on a kept-alive connection the outage cut.
    expect(first.lastError).toMatch(/Gotify at http:\/\/127.0.0.1:\d+\/message: connection (refused|reset|closed)/);

    await gotify.setDown(false);
    gotify.faults.failNext(1, 503);
    passBackoff(1);
    const second = await failedAttempt(() => deliveriesOf(job.id)[0], 2);
    expect(second.lastError).toContain('HTTP 503');

    passBackoff(2);
    await until('the message', () => gotify.messages.some((m) => m.title.endsWith('– Aquarius')));
    const done = await until('delivered', () => deliveriesOf(job.id).find((d) => d.status === 'delivered'));
    expect(done.attempts).toBe(3);
    expect(gotify.messages.filter((m) => m.title.endsWith('– Aquarius'))).toHaveLength(1);
  });

  it('never holds up the transition that raised the event, even when Gotify is slow', async () => {
    gotify.faults.delayMs = 1500;
    try {
      const job = newJob('Olson');
      // The transition is synchronous and returns its row: delivery happens later, on the outbox queue.
      const after = ctx().downloads.transition(job.id, { status: 'blocked', blockReason: 'Low match score', blockedAt: server.clock.now() });
      expect(after?.status).toBe('blocked');
      expect(gotify.messages.some((m) => m.title.endsWith('– Olson'))).toBe(false);
      await until('the slow message', () => gotify.messages.some((m) => m.title.endsWith('– Olson')));
    } finally {
      gotify.faults.delayMs = 0;
    }
  });

  it('gives up at once when Gotify refuses the token', async () => {
    const saved = ctx().settings.get().integrations.gotify;
    ctx().settings.update({ integrations: { gotify: { url: saved.url, token: 'A-wrong-token' } } });
    try {
      const job = newJob('Rue the Whirl');
      ctx().downloads.transition(job.id, { status: 'blocked', blockReason: 'Low match score', blockedAt: server.clock.now() });
      const failed = await until('failed for good', () => deliveriesOf(job.id).find((d) => d.status === 'failed'));
      expect(failed.attempts).toBe(1);
      expect(failed.lastError).toContain('Gotify rejected the token (401)');
      expect(ctx().jobsRepo.byId(failed.queueJobId!)?.status).toBe('dead');
    } finally {
      ctx().settings.update({ integrations: { gotify: { url: saved.url, token: gotify.appToken } } });
    }
  });
});

describe('webhook notifications', () => {
  it('a webhook failing the first two attempts is retried and delivered once, with JSON-escaped placeholders', async () => {
    hook.failNext(2, 503);
    const seen = hook.requests.length;
    const job = newJob('Telephasic "Workshop"\\1');
    ctx().downloads.transition(job.id, { status: 'failed', error: 'No source had "it"\nanywhere' });
    const row = () => deliveriesOf(job.id).find((d) => d.destination === 'webhook:ha');
    await failedAttempt(row, 1);
    passBackoff(1);
    await failedAttempt(row, 2);
    passBackoff(2);
    await until('delivered', () => row()?.status === 'delivered');
    expect(row()).toMatchObject({ event: 'job_failed', attempts: 3, status: 'delivered' });

    const requests = hook.requests.slice(seen);
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual(Array(3).fill('POST /api/webhook/tonearm'));
    const delivered = hook.delivered.filter((r) => r.path === '/api/webhook/tonearm');
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.headers['x-token']).toBe('hook-secret');
    expect(delivered[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(delivered[0]!.body)).toEqual({
      text: 'Boards of Canada – Telephasic "Workshop"\\1 failed: No source had "it"\nanywhere',
      job: String(job.id),
      flow: '',
    });
    // Nothing more arrives later.
    passBackoff(3);
    await new Promise((r) => setTimeout(r, 300));
    expect(hook.requests.slice(seen)).toHaveLength(3);
  });

  it('finished tracks and a completed album reach the webhooks subscribed to them', async () => {
    const album = downloadAlbums.upsert(
      ctx().db,
      { albumMbid: 'a0b3f5c8-0000-4000-8000-000000000001', releaseMbid: null, artistMbid: null, artistName: 'Boards of Canada', albumName: 'Geogaddi', userId: null, waitingForSource: false },
      server.clock.now(),
    );
    const one = newJob('Ready Lets Go', { albumId: album.id, albumName: 'Geogaddi' });
    const two = newJob('Music Is Math', { albumId: album.id, albumName: 'Geogaddi' });
    const service = ctx().downloads;
    const seen = hook.delivered.length;
    service.transition(one.id, { status: 'done', completedAt: server.clock.now(), finalPath: '/music/a.flac' });
    await until('first job_done', () => hook.delivered.length > seen);
    service.transition(two.id, { status: 'done', completedAt: server.clock.now(), finalPath: '/music/b.flac' });
    await until('three deliveries', () => hook.delivered.slice(seen).length === 3);
    await new Promise((r) => setTimeout(r, 200));
    // The last job's job_done and the album's album_complete go out side by side, in either order.
    const bodies = hook.delivered.slice(seen).map((r) => ({ method: r.method, path: r.path, body: JSON.parse(r.body) as Record<string, string> }));
    expect(bodies.map((b) => [b.method, b.path, b.body.event, b.body.trackName]).sort()).toEqual([
      ['PUT', '/albums', 'album_complete', ''],
      ['PUT', '/albums', 'job_done', 'Music Is Math'],
      ['PUT', '/albums', 'job_done', 'Ready Lets Go'],
    ]);
    expect(bodies.find((b) => b.body.event === 'album_complete')!.body).toMatchObject({
      title: 'Album complete: Boards of Canada – Geogaddi',
      albumName: 'Geogaddi',
      status: 'complete',
      flowName: '',
      flowPath: '',
    });
    // job_done is not among Gotify's events here.
    expect(gotify.messages.some((m) => m.title.includes('Music Is Math'))).toBe(false);
  });
});
