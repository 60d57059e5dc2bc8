import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationDeliveries, type DeliveryRow } from '../../server/db/notifications.js';
import { NOTIFICATIONS_QUEUE } from '../../server/domain/notifications/service.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { startFakeNtfy, type FakeNtfy } from '../fakes/ntfy/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Issue 27 §3, decisions §12: ntfy and Discord notifications, their settings and their tests. */

let server: TestServer;
let ntfy: FakeNtfy;
let discord: FakeDiscord;

const PUBLIC = 'http://tonearm.lan:3001';
const NTFY_TOKEN = 'tk_7eevizlsiwf9yi4uxsrs83r4352o0';

beforeAll(async () => {
  [server, ntfy, discord] = await Promise.all([startTestServer(), startFakeNtfy(), startFakeDiscord()]);
  ntfy.protect('tonearm-alerts', [NTFY_TOKEN]);
  ntfy.addToken('tk_readonlyuser0000000000000000');
});
afterAll(async () => {
  await Promise.all([server.stop(), ntfy.close(), discord.close()]);
});

const ctx = () => server.ctx;
const admin = (pathname: string, json?: unknown) => server.api(pathname, { method: json === undefined ? 'GET' : 'POST', token: server.admin.token, ...(json !== undefined && { json }) });
const body = async (res: Response) => (await res.json()) as Record<string, any>;
const storedSettings = () => ctx().db.prepare("SELECT value FROM settings WHERE key = 'settings'").pluck().get() as string;

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('notification settings for ntfy and Discord', () => {
  it('have defaults: off until configured, the same events as Gotify, ntfy priorities and tags per event', async () => {
    const settings = await body(await admin('/api/settings'));
    expect(settings.integrations.ntfy).toEqual({ url: '', topic: '', token: '', enabled: true });
    expect(settings.integrations.discord).toEqual({ webhookUrl: '', enabled: true });
    expect(settings.notifications.ntfy).toEqual({
      events: ['job_blocked', 'job_failed'],
      priorities: { job_blocked: 4, job_failed: 4, job_done: 3, album_complete: 3 },
      tags: { job_blocked: ['warning'], job_failed: ['x'], job_done: ['musical_note'], album_complete: ['cd'] },
      templates: {},
    });
    expect(settings.notifications.discord).toEqual({ events: ['job_blocked', 'job_failed'], templates: {} });
  });

  it('refuse bad values with the setting named in words', async () => {
    const bad = async (patch: unknown, message: unknown) => {
      const res = await admin('/api/settings', patch);
      expect(res.status).toBe(400);
      expect((await body(res)).message).toEqual(message);
    };
    await bad({ integrations: { ntfy: { topic: 'has space' } } }, 'ntfy topic: must be 1–64 letters, digits, - or _');
    await bad({ integrations: { ntfy: { url: 'ftp://ntfy' } } }, expect.stringMatching(/^ntfy address: /));
    await bad({ integrations: { discord: { webhookUrl: 'not a url' } } }, expect.stringMatching(/^Discord webhook address: /));
    await bad({ integrations: { discord: { webhookUrl: 'http://169.254.169.254/api/webhooks/1/x' } } }, 'Discord webhook address: is a link-local or cloud metadata address, which is never allowed');
    await bad({ notifications: { ntfy: { priorities: { job_failed: 6 } } } }, expect.stringMatching(/^ntfy message priority \(job_failed\): /));
    await bad({ notifications: { ntfy: { tags: { job_done: ['a,b'] } } } }, 'ntfy tags, entry 1 (job_done): must not contain commas or line breaks');
    await bad({ notifications: { discord: { events: ['job_done', 'job_done'] } } }, 'Discord notification events: lists an event twice');
  });

  it('keep the ntfy token and the Discord webhook address sealed and never show them', async () => {
    const res = await admin('/api/settings', { integrations: { ntfy: { url: ntfy.url, topic: 'tonearm-alerts', token: NTFY_TOKEN }, discord: { webhookUrl: discord.webhookUrl } } });
    expect(res.status).toBe(200);
    const answered = await res.text();
    const shown = await (await admin('/api/settings')).text();
    for (const text of [answered, shown, storedSettings()]) {
      expect(text).not.toContain(NTFY_TOKEN);
      expect(text).not.toContain(discord.webhookToken);
    }
    expect(JSON.parse(shown).integrations).toMatchObject({ ntfy: { url: ntfy.url, topic: 'tonearm-alerts', token: '********' }, discord: { webhookUrl: '********' } });
    const stored = JSON.parse(storedSettings()).integrations;
    expect(stored.ntfy.token).toMatch(/^sealed:v1:/);
    expect(stored.discord.webhookUrl).toMatch(/^sealed:v1:/);
    // Sent back as shown, the stored values stay.
    expect((await admin('/api/settings', JSON.parse(shown))).status).toBe(200);
    expect(ctx().settings.get().integrations.ntfy.token).toBe(NTFY_TOKEN);
    expect(ctx().settings.get().integrations.discord.webhookUrl).toBe(discord.webhookUrl);
    // Moving ntfy to another server with the token kept masked: it must be typed again.
    const moved = await admin('/api/settings', { integrations: { ntfy: { url: 'http://127.0.0.2:9', token: '********' } } });
    expect(moved.status).toBe(400);
    expect(await body(moved)).toMatchObject({ code: 'SECRET_REENTRY_REQUIRED' });
  });
});

describe('POST /api/settings/ntfy/test', () => {
  it('is for administrators', async () => {
    expect((await server.api('/api/settings/ntfy/test', { method: 'POST', json: {} })).status).toBe(401);
  });

  it('publishes a test message with the saved settings, the token as a bearer token', async () => {
    const before = ntfy.messages.length;
    const res = await admin('/api/settings/ntfy/test', {});
    expect(res.status).toBe(200);
    const sent = ntfy.messages.at(-1)!;
    expect(ntfy.messages.length).toBe(before + 1);
    expect(await body(res)).toEqual({ success: true, messageId: sent.id, message: `Sent a test message to the ntfy topic tonearm-alerts (message ${sent.id})` });
    expect(sent).toMatchObject({ topic: 'tonearm-alerts', title: 'Tonearm – Test', message: 'Notifications from Tonearm reach this ntfy topic.', tags: ['musical_note'] });
    expect(ntfy.requests.at(-1)).toMatchObject({ method: 'POST', path: '/', style: 'json', token: NTFY_TOKEN, contentType: 'application/json' });
  });

  it('names a missing, refused or unknown token, a bad topic and an address that is not ntfy', async () => {
    const noToken = await admin('/api/settings/ntfy/test', { url: ntfy.url, topic: 'tonearm-alerts', token: '' });
    expect(noToken.status).toBe(502);
    expect(await body(noToken)).toEqual({
      error: 'Upstream unavailable',
      code: 'UPSTREAM_AUTH_FAILED',
      message: "ntfy: ntfy needs an access token for this topic (401); the token's user must be allowed to write to the topic",
    });
    const readOnly = await admin('/api/settings/ntfy/test', { url: ntfy.url, topic: 'tonearm-alerts', token: 'tk_readonlyuser0000000000000000' });
    expect((await body(readOnly)).message).toBe("ntfy: ntfy rejected the access token (403); the token's user must be allowed to write to the topic");
    // An open topic needs no token.
    expect((await admin('/api/settings/ntfy/test', { url: ntfy.url, topic: 'open-topic', token: '' })).status).toBe(200);
    expect(ntfy.messages.at(-1)!.topic).toBe('open-topic');

    const badTopic = await admin('/api/settings/ntfy/test', { url: ntfy.url, topic: 'a b' });
    expect(badTopic.status).toBe(400);
    const reserved = await admin('/api/settings/ntfy/test', { url: ntfy.url, topic: 'v1', token: '' });
    expect(reserved.status).toBe(400);
    expect(await body(reserved)).toMatchObject({ code: 'UPSTREAM_REJECTED', message: 'ntfy: ntfy refused the message (400): invalid request: topic invalid' });
    const elsewhere = await admin('/api/settings/ntfy/test', { url: `${discord.url}/sub`, topic: 'x', token: '' });
    expect(elsewhere.status).toBe(502);
    expect((await body(elsewhere)).message).toMatch(/^ntfy: not ntfy at this URL: POST http:\/\/127\.0\.0\.1:\d+\/sub\/ answered HTTP 404/);
    ntfy.faults.failNext(1, 429);
    const limited = await admin('/api/settings/ntfy/test', {});
    expect(limited.status).toBe(503);
    expect((await body(limited)).message).toContain('ntfy is rate limiting');
  });

  it('sends the saved token only to the saved server, and answers 409 when nothing is set', async () => {
    const moved = await admin('/api/settings/ntfy/test', { url: 'http://127.0.0.2:9' });
    expect(moved.status).toBe(400);
    expect(await body(moved)).toMatchObject({ code: 'SECRET_REENTRY_REQUIRED' });
    const saved = ctx().settings.get().integrations.ntfy;
    ctx().settings.update({ integrations: { ntfy: { url: '', topic: '', token: '' } } });
    try {
      const res = await admin('/api/settings/ntfy/test', {});
      expect(res.status).toBe(409);
      expect(await body(res)).toMatchObject({ code: 'NOT_CONFIGURED', message: expect.stringContaining('integrations.ntfy.topic') });
    } finally {
      ctx().settings.update({ integrations: { ntfy: saved } });
    }
  });
});

describe('POST /api/settings/discord/test', () => {
  it('sends a test embed to the saved webhook, or to one typed in', async () => {
    const before = discord.messages.length;
    const res = await admin('/api/settings/discord/test', {});
    expect(res.status).toBe(200);
    const sent = discord.messages.at(-1)!;
    expect(discord.messages.length).toBe(before + 1);
    expect(await body(res)).toEqual({ success: true, messageId: sent.id, message: `Sent a test message to the Discord webhook (message ${sent.id})` });
    expect(sent.username).toBe('Tonearm');
    expect(sent.allowed_mentions).toEqual({ parse: [] });
    expect(sent.embeds[0]).toMatchObject({
      title: 'Tonearm – Test',
      description: 'Notifications from Tonearm reach this channel.',
      fields: [
        { name: 'Artist', value: 'Tonearm', inline: true },
        { name: 'Title', value: 'Test notification', inline: true },
        { name: 'Album', value: 'Test album', inline: true },
        { name: 'Reason', value: 'This is a test message from Tonearm', inline: false },
      ],
    });
    expect(discord.requests.at(-1)).toMatchObject({ method: 'POST', wait: true, status: 200 });
    expect((await admin('/api/settings/discord/test', { webhookUrl: '********' })).status).toBe(200);
    expect((await admin('/api/settings/discord/test', { webhookUrl: discord.webhookUrl })).status).toBe(200);
  });

  it('says why without ever showing the webhook token', async () => {
    const wrongToken = `${discord.url}/api/webhooks/${discord.webhookId}/not-the-token-abc`;
    const res = await admin('/api/settings/discord/test', { webhookUrl: wrongToken });
    expect(res.status).toBe(502);
    const answer = await body(res);
    expect(answer).toEqual({
      error: 'Upstream unavailable',
      code: 'UPSTREAM_AUTH_FAILED',
      message: "discord: Discord refused the webhook (401: Invalid Webhook Token); copy the webhook's address again from the channel's Integrations settings",
    });
    const unknown = await body(await admin('/api/settings/discord/test', { webhookUrl: `${discord.url}/api/webhooks/1/${discord.webhookToken}` }));
    expect(unknown).toMatchObject({ code: 'UPSTREAM_AUTH_FAILED', message: expect.stringContaining('404: Unknown Webhook') });

    discord.rateLimitNext(1, 2.5);
    const limited = await admin('/api/settings/discord/test', {});
    expect(limited.status).toBe(503);
    const text = JSON.stringify(await body(limited));
    expect(text).toContain('Discord is rate limiting this webhook');
    expect(text).toContain('retry after 2.5 s');
    expect(text).toContain(`/api/webhooks/${discord.webhookId}/…`);
    expect(text).not.toContain(discord.webhookToken);

    await discord.setDown(true);
    try {
      const down = await body(await admin('/api/settings/discord/test', {}));
      expect(down).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
      expect(down.message).toMatch(/connection (refused|reset|closed)/);
      expect(down.message).not.toContain(discord.webhookToken);
    } finally {
      await discord.setDown(false);
    }
  });

  it('answers 409 when no webhook is saved', async () => {
    const saved = ctx().settings.get().integrations.discord.webhookUrl;
    ctx().settings.update({ integrations: { discord: { webhookUrl: '' } } });
    try {
      const res = await admin('/api/settings/discord/test', {});
      expect(res.status).toBe(409);
      expect(await body(res)).toMatchObject({ code: 'NOT_CONFIGURED', message: expect.stringContaining('integrations.discord.webhookUrl') });
    } finally {
      ctx().settings.update({ integrations: { discord: { webhookUrl: saved } } });
    }
  });
});

describe('ntfy and Discord in the outbox', () => {
  beforeAll(async () => {
    const res = await admin('/api/settings', {
      downloads: { worker: { running: false } },
      notifications: {
        publicUrl: PUBLIC,
        ntfy: { events: ['job_blocked', 'job_done'], priorities: { job_blocked: 5 }, tags: { job_done: ['tada', 'music'] }, templates: { job_done: { title: 'Got $trackName', message: 'by $artistName' } } },
        discord: { events: ['job_blocked', 'job_failed'] },
      },
    });
    expect(res.status).toBe(200);
  });

  const deliveriesOf = (jobId: number) => notificationDeliveries.list(ctx().db, 1000).filter((d) => (JSON.parse(d.vars) as { jobId: string }).jobId === String(jobId));
  const newJob = (trackName: string) => ctx().downloads.create({ userId: null, artistName: 'Stereolab', trackName, albumName: 'Dots and Loops' });

  it('a held track goes to ntfy (priority, tags, click) and to Discord (an embed with artist, title, reason and the review link)', async () => {
    const job = newJob('Miss Modular');
    const [n, d] = [ntfy.messages.length, discord.messages.length];
    ctx().downloads.transition(job.id, { status: 'blocked', blockReason: 'Duration 5:10 differs from the expected 4:25', blockedAt: server.clock.now() });
    await ntfy.waitForMessages(n + 1);
    await discord.waitForMessages(d + 1);
    const review = `${PUBLIC}/review?job=${job.id}`;
    expect(ntfy.messages.at(-1)).toMatchObject({
      topic: 'tonearm-alerts',
      title: 'Held for review: Stereolab – Miss Modular',
      message: `Duration 5:10 differs from the expected 4:25\n\nReview it: ${review}`,
      priority: 5,
      tags: ['warning'],
      click: review,
    });
    expect(ntfy.requests.at(-1)).toMatchObject({ token: NTFY_TOKEN, style: 'json' });
    const embed = discord.messages.at(-1)!.embeds[0]!;
    expect(embed).toMatchObject({
      title: 'Held for review: Stereolab – Miss Modular',
      url: review,
      color: 0xf0a020,
      fields: [
        { name: 'Artist', value: 'Stereolab', inline: true },
        { name: 'Title', value: 'Miss Modular', inline: true },
        { name: 'Album', value: 'Dots and Loops', inline: true },
        { name: 'Reason', value: 'Duration 5:10 differs from the expected 4:25', inline: false },
      ],
    });
    expect(embed.description).toContain(review);
    expect(Date.parse(embed.timestamp!)).toBe(server.clock.now());
    const rows = await until('both delivered', () => {
      const r = deliveriesOf(job.id);
      return r.length === 2 && r.every((x) => x.status === 'delivered') && r;
    });
    expect(rows.map((r) => r.destination).sort()).toEqual(['discord', 'ntfy']);
  });

  it('uses the ntfy texts and tags of the event, and links other events to the downloads page', async () => {
    const job = newJob('Brakhage');
    const n = ntfy.messages.length;
    const d = discord.messages.length;
    ctx().downloads.transition(job.id, { status: 'done', completedAt: server.clock.now(), finalPath: '/music/brakhage.flac' });
    await ntfy.waitForMessages(n + 1);
    expect(ntfy.messages.at(-1)).toMatchObject({ title: 'Got Brakhage', message: 'by Stereolab', tags: ['tada', 'music'], click: `${PUBLIC}/downloads` });
    // ntfy leaves the default priority (3) out of its message.
    expect(ntfy.messages.at(-1)!.priority).toBeUndefined();
    // job_done is not among Discord's events.
    await until('delivered', () => deliveriesOf(job.id).find((r) => r.status === 'delivered'));
    expect(discord.messages.length).toBe(d);
    expect(deliveriesOf(job.id).map((r) => r.destination)).toEqual(['ntfy']);
  });

  it('a Discord rate limit is retried after its retry_after, not the backoff, and delivered once', async () => {
    discord.rateLimitNext(1, 7.25);
    const job = newJob('Refractions in the Plastic Pulse');
    ctx().downloads.transition(job.id, { status: 'failed', error: 'No source had it' });
    const row = () => deliveriesOf(job.id).find((r) => r.destination === 'discord');
    const first = await until('the rate-limited attempt', () => {
      const r = row();
      const queued = r?.queueJobId ? ctx().jobsRepo.byId(r.queueJobId) : undefined;
      return r?.attempts === 1 && queued?.status === 'pending' && { r, queued };
    });
    expect(first.r.status).toBe('pending');
    expect(first.r.lastError).toContain('Discord is rate limiting this webhook');
    expect(first.r.lastError).not.toContain(discord.webhookToken);
    // 7.25 s from the attempt, rounded up to the millisecond; the backoff would have been 24–36 s.
    expect(first.queued!.run_at - server.clock.now()).toBe(7250);
    const before = discord.messages.length;
    server.clock.advance(7250);
    ctx().jobs.wake(NOTIFICATIONS_QUEUE);
    await discord.waitForMessages(before + 1);
    const done = await until('delivered', () => row()?.status === 'delivered' && row());
    expect(done.attempts).toBe(2);
    expect(discord.messages.filter((m) => m.embeds[0]?.fields?.some((f) => f.value === 'Refractions in the Plastic Pulse'))).toHaveLength(1);
  });

  it('a rate limit that outlasts the five attempts does not drop the message', async () => {
    discord.rateLimitNext(5, 0.2);
    const job = newJob('Ticker-Tape of the Unconscious');
    const before = discord.messages.length;
    ctx().downloads.transition(job.id, { status: 'failed', error: 'No source had it' });
    const row = () => deliveriesOf(job.id).find((r) => r.destination === 'discord');
    for (let attempt = 1; attempt <= 5; attempt++) {
      await until(`rate-limited attempt ${attempt}`, () => {
        const r = row();
        const queued = r?.queueJobId ? ctx().jobsRepo.byId(r.queueJobId) : undefined;
        return r?.attempts === attempt && r.status === 'pending' && queued?.status === 'pending';
      });
      // retry_after 0.2 s; the outbox waits at least a second.
      expect(ctx().jobsRepo.byId(row()!.queueJobId!)!.run_at - server.clock.now()).toBe(1000);
      server.clock.advance(1000);
      ctx().jobs.wake(NOTIFICATIONS_QUEUE);
    }
    const done = await until('delivered', () => row()?.status === 'delivered' && row());
    expect(done.attempts).toBe(6);
    expect(discord.messages.length).toBe(before + 1);
    expect(discord.requests.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(5);
  });

  it('is retried while ntfy is down, and given up at once when the token is refused', async () => {
    await ntfy.setDown(true);
    const job = newJob('Diagonals');
    ctx().downloads.transition(job.id, { status: 'blocked', blockReason: 'Low match score', blockedAt: server.clock.now() });
    const row = () => deliveriesOf(job.id).find((r) => r.destination === 'ntfy');
    const failed: DeliveryRow = await until('a failed first attempt', () => row()?.attempts === 1 && row());
    expect(failed.status).toBe('pending');
    expect(failed.lastError).toMatch(/ntfy at http:\/\/127\.0\.0\.1:\d+\/: connection (refused|reset|closed)/);
    await ntfy.setDown(false);
    server.clock.advance(40_000);
    ctx().jobs.wake(NOTIFICATIONS_QUEUE);
    await until('delivered after the outage', () => row()?.status === 'delivered');

    const saved = ctx().settings.get().integrations.ntfy;
    ctx().settings.update({ integrations: { ntfy: { ...saved, token: 'tk_unknown000000000000000000000' } } });
    try {
      const other = newJob('Prisoner of Mars');
      ctx().downloads.transition(other.id, { status: 'blocked', blockReason: 'Low match score', blockedAt: server.clock.now() });
      const dead = await until('failed for good', () => deliveriesOf(other.id).find((r) => r.destination === 'ntfy' && r.status === 'failed'));
      expect(dead.attempts).toBe(1);
      expect(dead.lastError).toContain('ntfy rejected the access token (401)');
    } finally {
      ctx().settings.update({ integrations: { ntfy: saved } });
    }
  });
});

describe('links without notifications.publicUrl', () => {
  it('use TONEARM_PUBLIC_URL', async () => {
    const other = await startTestServer({ env: { TONEARM_PUBLIC_URL: 'https://music.example.net/' } });
    try {
      other.ctx.settings.update({ integrations: { discord: { webhookUrl: discord.webhookUrl }, ntfy: { url: ntfy.url, topic: 'open-topic' } } });
      const call = (p: string) => other.api(p, { method: 'POST', token: other.admin.token, json: {} });
      expect((await call('/api/settings/discord/test')).status).toBe(200);
      expect(discord.messages.at(-1)!.embeds[0]!.url).toBe('https://music.example.net/review');
      expect((await call('/api/settings/ntfy/test')).status).toBe(200);
      expect(ntfy.messages.at(-1)!.click).toBe('https://music.example.net/review');
    } finally {
      await other.stop();
    }
  });
});
