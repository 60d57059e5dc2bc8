import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { BlockedJobNotifier, type DesktopNotification } from '../../main/notifications.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// A job becoming blocked, driven through the download service of a real server, reaches /ws
// clients and the desktop shell's notifier, and only those who may see the job.

let server: TestServer;
const users: Record<'owner' | 'stranger', { id: number; token: string }> = {} as never;

async function addUser(username: string) {
  const created = await server.api('/api/users', {
    method: 'POST',
    token: server.admin.token,
    json: { username, password: 'password-123', permissions: { accessFlow: true } },
  });
  expect(created.status).toBe(201);
  const login = await server.api('/api/auth/login', { method: 'POST', json: { username, password: 'password-123' } });
  return { id: ((await created.json()) as { id: number }).id, token: ((await login.json()) as { token: string }).token };
}

type Message = { type: string; [key: string]: any };

/** A /ws client subscribed to `playlists`, reading messages in order. */
async function subscriber(token: string) {
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${token}`);
  const queue: Message[] = [];
  const waiters: ((m: Message) => void)[] = [];
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString()) as Message;
    const w = waiters.shift();
    if (w) w(m);
    else queue.push(m);
  });
  const next = () =>
    new Promise<Message>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no message within 5 s')), 5000);
      const take = (m: Message) => {
        clearTimeout(timer);
        resolve(m);
      };
      const queued = queue.shift();
      if (queued) take(queued);
      else waiters.push(take);
    });
  expect((await next()).type).toBe('connected');
  ws.send(JSON.stringify({ type: 'subscribe', channels: ['playlists'] }));
  expect(await next()).toMatchObject({ type: 'subscribed', channels: ['playlists'] });
  return {
    ws,
    next,
    /** Everything received before a pong: what the server sent this client up to now, in order. */
    async drain(): Promise<Message[]> {
      ws.send(JSON.stringify({ type: 'ping' }));
      const got: Message[] = [];
      for (let m = await next(); m.type !== 'pong'; m = await next()) got.push(m);
      return got;
    },
  };
}

const playlistsSubscribers = () => server.ctx.hub.stats().channels.playlists ?? 0;

async function waitFor(check: () => boolean, what: string, ms = 5000) {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  server = await startTestServer();
  users.owner = await addUser('olga');
  users.stranger = await addUser('sam');
  // Jobs are driven by hand here; a stopped worker starts none of them.
  await server.api('/api/playlists/worker/stop', { method: 'POST', token: server.admin.token });
});

afterAll(async () => {
  await server?.stop();
});

describe('job events on /ws', () => {
  it('sends job_updated and job_blocked to the owner and administrators, not to another user', async () => {
    const owner = await subscriber(users.owner.token);
    const admin = await subscriber(server.admin.token);
    const stranger = await subscriber(users.stranger.token);
    const service = server.ctx.downloads;

    const job = service.create({ userId: users.owner.id, artistName: 'Nina Simone', trackName: 'Sinnerman', albumName: 'Pastel Blues' });
    service.transition(job.id, { status: 'downloading', phase: 'download', progress: 40 }, ['pending']);
    service.transition(
      job.id,
      { status: 'blocked', phase: null, blockReason: 'Duration differs by 95 s', stagingPath: '/held/sinnerman.flac', blockedAt: server.clock.now() },
      ['downloading'],
    );

    for (const client of [owner, admin]) {
      const got = await client.drain();
      expect(got.map((m) => [m.type, m.job.status])).toEqual([
        ['job_updated', 'downloading'],
        ['job_updated', 'blocked'],
        ['job_blocked', 'blocked'],
      ]);
      const blocked = got[2]!;
      expect(blocked).toMatchObject({
        type: 'job_blocked',
        channel: 'playlists',
        timestamp: server.clock.now(),
        job: {
          id: String(job.id),
          status: 'blocked',
          artistName: 'Nina Simone',
          trackName: 'Sinnerman',
          albumName: 'Pastel Blues',
          userId: users.owner.id,
          blockReason: 'Duration differs by 95 s',
          stagingPath: '/held/sinnerman.flac',
          blockedAt: new Date(server.clock.now()).toISOString(),
        },
      });
      expect(got[0]!.job).toMatchObject({ phase: 'download', progress: 40 });
    }
    expect(await stranger.drain()).toEqual([]);

    // A transition that does not apply (the job is no longer downloading) sends nothing.
    expect(service.transition(job.id, { status: 'failed' }, ['downloading'])).toBeUndefined();
    expect(await owner.drain()).toEqual([]);
    for (const c of [owner, admin, stranger]) c.ws.close();
  });
});

describe('desktop notifications from a real server', () => {
  it('raises one notice for the owner\'s blocked job, which opens the review screen, and none for another user', async () => {
    await waitFor(() => server.ctx.hub.stats().totalClients === 0, 'the sockets of the previous test to close');
    const notices: { user: string; notice: DesktopNotification }[] = [];
    let reviews = 0;
    const notifier = (user: 'owner' | 'stranger') =>
      new BlockedJobNotifier({
        serverUrl: () => server.url,
        getToken: async () => users[user].token,
        notify: (notice) => notices.push({ user, notice }),
        openReview: () => reviews++,
        groupWindowMs: 50,
      });
    const ownerNotifier = notifier('owner');
    const strangerNotifier = notifier('stranger');
    const connected = [once(ownerNotifier, 'connected'), once(strangerNotifier, 'connected')];
    ownerNotifier.start();
    strangerNotifier.start();
    try {
      await Promise.all(connected);
      // Both sockets have subscribed to playlists once the hub counts them.
      await waitFor(() => playlistsSubscribers() === 2, 'the notifiers to subscribe');

      const service = server.ctx.downloads;
      const job = service.create({ userId: users.owner.id, artistName: 'Alice Coltrane', trackName: 'Journey in Satchidananda' });
      service.transition(job.id, { status: 'downloading', phase: 'verify' });
      service.transition(job.id, { status: 'blocked', blockReason: 'Weak title match', stagingPath: '/held/journey.opus', blockedAt: server.clock.now() });

      await waitFor(() => notices.length > 0, 'the notification');
      // Give a notice to the other user, had it been sent, the time to arrive: the same broadcast reaches every socket.
      await new Promise((r) => setTimeout(r, 300));
      expect(notices.map(({ user, notice }) => ({ user, title: notice.title, body: notice.body }))).toEqual([
        { user: 'owner', title: 'A download needs review', body: 'Alice Coltrane – Journey in Satchidananda was held back. Click to review it.' },
      ]);
      notices[0]!.notice.onClick();
      expect(reviews).toBe(1);

      // The same job blocked again (after a deny and a new download) is not announced twice.
      service.transition(job.id, { status: 'pending', blockReason: null });
      service.transition(job.id, { status: 'blocked', blockReason: 'Weak title match', blockedAt: server.clock.now() });
      const second = service.create({ userId: users.owner.id, artistName: 'Pharoah Sanders', trackName: 'The Creator Has a Master Plan' });
      service.transition(second.id, { status: 'blocked', blockReason: 'Duration differs', blockedAt: server.clock.now() });
      await waitFor(() => notices.length > 1, 'the second notification');
      await new Promise((r) => setTimeout(r, 300));
      expect(notices.slice(1).map(({ user, notice }) => [user, notice.body])).toEqual([
        ['owner', 'Pharoah Sanders – The Creator Has a Master Plan was held back. Click to review it.'],
      ]);
    } finally {
      ownerNotifier.stop();
      strangerNotifier.stop();
    }
  });
});
