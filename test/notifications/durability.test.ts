import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { notificationDeliveries } from '../../server/db/notifications.js';
import { NOTIFICATIONS_QUEUE } from '../../server/domain/notifications/service.js';
import { startFakeGotify, type FakeGotify } from '../fakes/gotify/index.js';
import { startTestServer, TestClock, type TestServer } from '../helpers/server.js';

/** The outbox is durable: a notification still owed when the server stops is delivered after it starts again. */

let gotify: FakeGotify;
let dataDir: string;
const servers: TestServer[] = [];

beforeAll(async () => {
  gotify = await startFakeGotify();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-notify-'));
});
afterAll(async () => {
  await Promise.all([...servers.map((s) => s.stop()), gotify.close()]);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

it('a message owed when the server stops is sent once after the restart', async () => {
  const clock = new TestClock();
  const first = await startTestServer({ dataDir, clock });
  servers.push(first);
  const saved = await first.api('/api/settings', {
    method: 'POST',
    token: first.admin.token,
    json: { downloads: { worker: { running: false } }, integrations: { gotify: { url: gotify.url, token: gotify.appToken } } },
  });
  expect(saved.status).toBe(200);

  await gotify.setDown(true);
  const job = first.ctx.downloads.create({ userId: null, artistName: 'Autechre', trackName: 'Bike' });
  first.ctx.downloads.transition(job.id, { status: 'blocked', blockReason: 'Low match score', blockedAt: clock.now() });
  const owed = await until('a failed first attempt', () => notificationDeliveries.list(first.ctx.db).find((d) => d.attempts === 1 && d.status === 'pending'));
  await first.stop();
  servers.pop();

  await gotify.setDown(false);
  const second = await startTestServer({ dataDir, clock });
  servers.push(second);
  clock.advance(40_000);
  second.ctx.jobs.wake(NOTIFICATIONS_QUEUE);
  await gotify.waitForMessages(1);
  const delivered = await until('delivered', () => notificationDeliveries.get(second.ctx.db, owed.id)?.status === 'delivered' && notificationDeliveries.get(second.ctx.db, owed.id));
  expect(delivered).toMatchObject({ attempts: 2, event: 'job_blocked', destination: 'gotify' });
  await new Promise((r) => setTimeout(r, 300));
  expect(gotify.messages.map((m) => m.title)).toEqual(['Held for review: Autechre – Bike']);
});
