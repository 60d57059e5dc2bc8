import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchRefusedError, guardedGetText, isPrivateAddress } from '../../server/integrations/guardedFetch.js';
import { makeAudioFile } from '../fixtures/audio.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { RestClient } from './harness.js';

const LISTENER = { username: 'listener', password: 'listener-password' };

let tmp: string;
let mp3: Buffer;
let feedServer: http.Server;
let feedBase: string;
let server: TestServer;
let admin: RestClient;
let listener: RestClient;
/** Items the feed currently lists (tests add one to check refreshes). */
const items: { guid: string; title: string; file: string; date: string; duration: string }[] = [];

function rss(): string {
  const entries = items
    .map(
      (i) => `<item><title>${i.title}</title><description><![CDATA[<p>About ${i.title}</p>]]></description>
        <pubDate>${i.date}</pubDate><guid isPermaLink="false">${i.guid}</guid><itunes:duration>${i.duration}</itunes:duration>
        <enclosure url="${i.file}" type="audio/mpeg" length="${mp3.length}"/></item>`,
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>
    <title>Test Cast &amp; Friends</title><description>A podcast for tests</description>
    <itunes:image href="/cover.jpg"/>${entries}</channel></rss>`;
}

const atom = () => `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Atom Cast</title>
  <subtitle>Atom feed</subtitle><entry><id>urn:atom:1</id><title>Atom One</title><published>2024-03-01T10:00:00Z</published>
  <summary>First</summary><link rel="enclosure" href="/ep1.mp3" type="audio/mpeg" length="${mp3.length}"/></entry></feed>`;

function startFeedServer(): Promise<void> {
  feedServer = http.createServer((req, res) => {
    const url = req.url ?? '/';
    if (url === '/feed.xml') return void res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(rss());
    if (url === '/atom.xml') return void res.writeHead(200, { 'content-type': 'application/atom+xml' }).end(atom());
    if (url === '/moved.xml') return void res.writeHead(301, { location: '/feed.xml' }).end();
    if (url === '/to-ip') return void res.writeHead(302, { location: `${feedBase}/feed.xml` }).end();
    if (url === '/slow-feed.xml')
      return void res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(
        `<rss version="2.0"><channel><title>Slow</title><item><title>Stuck</title><guid>s1</guid><enclosure url="/slow.mp3" type="audio/mpeg"/></item></channel></rss>`,
      );
    if (url === '/slow.mp3') {
      res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': mp3.length });
      return void res.write(mp3.subarray(0, 1000)); // and never finishes
    }
    if (url === '/not-a-feed') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>hi</body></html>');
    if (/^\/ep\d\.mp3$/.test(url)) return void res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': mp3.length }).end(mp3);
    res.writeHead(404).end();
  });
  return new Promise((resolve) => feedServer.listen(0, '127.0.0.1', () => {
    feedBase = `http://127.0.0.1:${(feedServer.address() as AddressInfo).port}`;
    resolve();
  }));
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-rest-podcasts-'));
  mp3 = fs.readFileSync(makeAudioFile(path.join(tmp, 'episode.mp3'), 'mp3', { title: 'Episode', artist: 'Host' }, { seconds: 3 }));
  await startFeedServer();
  items.push(
    { guid: 'ep-1', title: 'Episode One', file: '/ep1.mp3', date: 'Mon, 01 Jan 2024 10:00:00 GMT', duration: '00:03' },
    { guid: 'ep-2', title: 'Episode Two', file: `${feedBase}/ep2.mp3`, date: 'Mon, 08 Jan 2024 10:00:00 GMT', duration: '1:02:03' },
  );
  server = await startTestServer({ env: { ALLOW_PRIVATE_TARGETS: '127.0.0.1', TONEARM_LIBRARY_WATCH: '0' } });
  admin = new RestClient(server, { username: 'admin', password: 'correct horse battery' });
  await server.api('/api/users', { method: 'POST', token: server.admin.token, json: LISTENER });
  listener = new RestClient(server, LISTENER);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await new Promise((r) => feedServer?.close(r));
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('internet radio stations', () => {
  it('administrators create, update and delete; everyone lists', async () => {
    expect((await listener.ok('getInternetRadioStations')).internetRadioStations).toEqual({ internetRadioStation: [] });
    await admin.ok('createInternetRadioStation', { name: 'Radio Paradise', streamUrl: 'https://stream.radioparadise.com/flac', homepageUrl: 'https://radioparadise.com' });
    await admin.ok('createInternetRadioStation', { name: 'Kitchen radio', streamUrl: 'http://192.168.1.20:8000/live' });
    let list = (await listener.ok('getInternetRadioStations')).internetRadioStations.internetRadioStation;
    expect(list).toEqual([
      { id: expect.stringMatching(/^ir-/), name: 'Kitchen radio', streamUrl: 'http://192.168.1.20:8000/live' },
      { id: expect.stringMatching(/^ir-/), name: 'Radio Paradise', streamUrl: 'https://stream.radioparadise.com/flac', homePageUrl: 'https://radioparadise.com/' },
    ]);
    await admin.ok('updateInternetRadioStation', { id: list[0].id, name: 'Kitchen', streamUrl: 'http://192.168.1.20:8000/hq' });
    await admin.ok('deleteInternetRadioStation', { id: list[1].id });
    list = (await admin.ok('getInternetRadioStations')).internetRadioStations.internetRadioStation;
    expect(list).toEqual([{ id: list[0].id, name: 'Kitchen', streamUrl: 'http://192.168.1.20:8000/hq' }]);
    const xml = await admin.xml('getInternetRadioStations');
    expect(xml).toContain(`<internetRadioStations><internetRadioStation id="${list[0].id}" name="Kitchen" streamUrl="http://192.168.1.20:8000/hq"/></internetRadioStations>`);
  });

  it('refuses non-administrators (50), bad URLs (0) and unknown ids (70)', async () => {
    expect((await listener.json('createInternetRadioStation', { name: 'x', streamUrl: 'http://a.example/' })).error.code).toBe(50);
    expect((await listener.json('deleteInternetRadioStation', { id: 'ir-1' })).error.code).toBe(50);
    const bad = await admin.json('createInternetRadioStation', { name: 'x', streamUrl: 'ftp://a.example/live' });
    expect(bad.error).toEqual({ code: 0, message: 'streamUrl must be an http or https URL' });
    expect((await admin.json('createInternetRadioStation', { name: 'x', streamUrl: 'http://a.example/', homepageUrl: 'javascript:alert(1)' })).error.code).toBe(0);
    expect((await admin.json('createInternetRadioStation', { streamUrl: 'http://a.example/' })).error.code).toBe(10);
    expect((await admin.json('updateInternetRadioStation', { id: 'ir-zz9', name: 'x', streamUrl: 'http://a.example/' })).error.code).toBe(70);
    expect((await admin.json('deleteInternetRadioStation', { id: 'pl-1' })).error.code).toBe(70);
  });
});

describe('podcasts', () => {
  let channelId: string;
  let episodes: any[];

  it('createPodcastChannel subscribes to an RSS feed and getPodcasts lists its episodes, newest first', async () => {
    await admin.ok('createPodcastChannel', { url: `${feedBase}/feed.xml` });
    const r = await listener.ok('getPodcasts');
    expect(r.podcasts.channel).toHaveLength(1);
    const channel = r.podcasts.channel[0];
    channelId = channel.id;
    expect(channel).toMatchObject({
      id: expect.stringMatching(/^pc-/), url: `${feedBase}/feed.xml`, title: 'Test Cast & Friends', description: 'A podcast for tests',
      originalImageUrl: `${feedBase}/cover.jpg`, status: 'completed',
    });
    episodes = channel.episode;
    expect(episodes.map((e: any) => [e.title, e.status, e.duration, e.publishDate])).toEqual([
      ['Episode Two', 'new', 3723, '2024-01-08T10:00:00.000Z'],
      ['Episode One', 'new', 3, '2024-01-01T10:00:00.000Z'],
    ]);
    expect(episodes[1]).toMatchObject({
      id: expect.stringMatching(/^pe-/), channelId, parent: channelId, isDir: false, type: 'podcast', album: 'Test Cast & Friends',
      description: '<p>About Episode One</p>', contentType: 'audio/mpeg', size: mp3.length,
    });
    expect(episodes[1].streamId).toBeUndefined();
    // Subscribing again keeps the one channel.
    await admin.ok('createPodcastChannel', { url: `${feedBase}/feed.xml` });
    expect((await admin.ok('getPodcasts', { includeEpisodes: false })).podcasts.channel).toEqual([
      expect.not.objectContaining({ episode: expect.anything() }),
    ]);
  });

  it('getPodcasts with id, getNewestPodcasts with count, getPodcastEpisode', async () => {
    expect((await admin.ok('getPodcasts', { id: channelId })).podcasts.channel.map((c: any) => c.id)).toEqual([channelId]);
    expect((await admin.json('getPodcasts', { id: 'pc-zzz' })).error.code).toBe(70);
    expect((await admin.ok('getNewestPodcasts', { count: 1 })).newestPodcasts.episode.map((e: any) => e.title)).toEqual(['Episode Two']);
    expect((await admin.ok('getNewestPodcasts')).newestPodcasts.episode).toHaveLength(2);
    expect((await admin.ok('getPodcastEpisode', { id: episodes[1].id })).podcastEpisode.title).toBe('Episode One');
  });

  it('downloadPodcastEpisode stores the enclosure; stream and download serve it with ranges', async () => {
    const id = episodes[1].id;
    expect((await listener.json('downloadPodcastEpisode', { id })).error.code).toBe(50);
    const notYet = await fetch(admin.url('stream', { id }));
    expect(notYet.status).toBe(200);
    expect((await notYet.text())).toContain('code="70"');
    await admin.ok('downloadPodcastEpisode', { id });
    const done = await until('the download', async () => {
      const e = (await admin.ok('getPodcastEpisode', { id })).podcastEpisode;
      return e.status === 'completed' || e.status === 'error' ? e : undefined;
    });
    expect(done).toMatchObject({ status: 'completed', streamId: id, suffix: 'mp3', size: mp3.length, contentType: 'audio/mpeg', duration: 3 });
    const files = fs.readdirSync(path.join(server.dataDir, 'podcasts'), { recursive: true }).map(String);
    expect(files.filter((f) => f.endsWith('.mp3'))).toHaveLength(1);

    const full = await fetch(admin.url('stream', { id }));
    expect(full.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await full.arrayBuffer()).equals(mp3)).toBe(true);
    const part = await fetch(admin.url('stream', { id }), { headers: { Range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${mp3.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(mp3.subarray(100, 200))).toBe(true);
    // The probed bit rate (64 kbps) is under the client's cap: the original bytes, no transcode.
    const capped = await fetch(admin.url('stream', { id, maxBitRate: 128 }));
    expect(capped.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await capped.arrayBuffer()).equals(mp3)).toBe(true);
    const dl = await fetch(admin.url('download', { id }));
    expect(dl.headers.get('content-disposition')).toContain('Test Cast & Friends - Episode One.mp3');
    expect(Buffer.from(await dl.arrayBuffer()).equals(mp3)).toBe(true);
  });

  it('refreshPodcasts adds new episodes and keeps downloaded ones', async () => {
    items.push({ guid: 'ep-3', title: 'Episode Three', file: '/ep3.mp3', date: 'Mon, 15 Jan 2024 10:00:00 GMT', duration: '60' });
    await admin.ok('refreshPodcasts');
    const list = await until('the refresh', async () => {
      const c = (await admin.ok('getPodcasts', { id: channelId })).podcasts.channel[0];
      return c.episode.length === 3 && c.status === 'completed' ? c.episode : undefined;
    });
    expect(list.map((e: any) => [e.title, e.status])).toEqual([['Episode Three', 'new'], ['Episode Two', 'new'], ['Episode One', 'completed']]);
    expect((await listener.json('refreshPodcasts')).error.code).toBe(50);
  });

  it('deletePodcastEpisode removes the file and keeps the episode as deleted', async () => {
    const id = episodes[1].id;
    await admin.ok('deletePodcastEpisode', { id });
    expect((await admin.ok('getPodcastEpisode', { id })).podcastEpisode).toMatchObject({ status: 'deleted' });
    const files = fs.readdirSync(path.join(server.dataDir, 'podcasts'), { recursive: true }).map(String);
    expect(files.filter((f) => f.endsWith('.mp3'))).toEqual([]);
    expect(await (await fetch(admin.url('stream', { id }))).text()).toContain('code="70"');
    expect((await admin.ok('getNewestPodcasts')).newestPodcasts.episode.map((e: any) => e.title)).toEqual(['Episode Three', 'Episode Two']);
  });

  it('follows redirects, reads Atom feeds, and refuses what is not a feed', async () => {
    await admin.ok('createPodcastChannel', { url: `${feedBase}/atom.xml` });
    await admin.ok('createPodcastChannel', { url: `${feedBase}/moved.xml` });
    const channels = (await admin.ok('getPodcasts')).podcasts.channel;
    const atomChannel = channels.find((c: any) => c.title === 'Atom Cast');
    expect(atomChannel.episode.map((e: any) => [e.title, e.publishDate, e.contentType])).toEqual([['Atom One', '2024-03-01T10:00:00.000Z', 'audio/mpeg']]);
    expect(channels.filter((c: any) => c.title === 'Test Cast & Friends').map((c: any) => c.url).sort()).toEqual([`${feedBase}/feed.xml`, `${feedBase}/moved.xml`]);
    const notFeed = await admin.json('createPodcastChannel', { url: `${feedBase}/not-a-feed` });
    expect(notFeed.error.code).toBe(0);
    expect(notFeed.error.message).toMatch(/neither an RSS nor an Atom feed/);
    expect((await admin.json('createPodcastChannel', { url: `${feedBase}/missing.xml` })).error.message).toMatch(/answered HTTP 404/);
    expect((await admin.json('createPodcastChannel', { url: 'file:///etc/passwd' })).error.message).toBe('url must be an http or https URL');
    expect((await listener.json('createPodcastChannel', { url: `${feedBase}/feed.xml` })).error.code).toBe(50);
  });

  it('deletePodcastChannel removes the channel, its episodes and files', async () => {
    await admin.ok('deletePodcastChannel', { id: channelId });
    const left = (await admin.ok('getPodcasts')).podcasts.channel.map((c: any) => c.id);
    expect(left).not.toContain(channelId);
    expect((await admin.json('getPodcastEpisode', { id: episodes[0].id })).error.code).toBe(70);
    expect((await admin.json('deletePodcastChannel', { id: channelId })).error.code).toBe(70);
  });
});

describe('the private-address guard', () => {
  it('without the allow-list, a feed on a loopback address is refused with a clear error', async () => {
    const guarded = await startTestServer({ env: { TONEARM_LIBRARY_WATCH: '0' } });
    try {
      const c = new RestClient(guarded, { username: 'admin', password: 'correct horse battery' });
      const r = await c.json('createPodcastChannel', { url: `${feedBase}/feed.xml` });
      expect(r.error.code).toBe(0);
      expect(r.error.message).toBe(
        `Cannot subscribe to ${feedBase}/feed.xml: Refusing to fetch ${feedBase}/feed.xml: 127.0.0.1 is a private or loopback address. ` +
          'Add "127.0.0.1" to ALLOW_PRIVATE_TARGETS to allow it.',
      );
      expect((await c.ok('getPodcasts')).podcasts.channel).toEqual([]);
    } finally {
      await guarded.stop();
    }
  });

  it('checks names through DNS and every redirect hop', async () => {
    const port = (feedServer.address() as AddressInfo).port;
    // Feeds follow redirects to other hosts (as the podcast service asks); each hop is guarded.
    const get = (url: string, allow: string[]) =>
      guardedGetText({ url, allowPrivateTargets: allow, redirects: 'any', timeoutMs: 5000, maxBytes: 1 << 20 });
    await expect(get(`http://localhost:${port}/feed.xml`, [])).rejects.toThrow(/localhost \((127\.0\.0\.1|::1)\) is a private or loopback address/);
    expect((await get(`http://localhost:${port}/feed.xml`, ['localhost'])).text).toContain('Test Cast');
    // Allowed first hop, refused redirect target.
    await expect(get(`http://localhost:${port}/to-ip`, ['localhost'])).rejects.toBeInstanceOf(FetchRefusedError);
    await expect(get(`http://localhost:${port}/to-ip`, ['localhost'])).rejects.toThrow(/127\.0\.0\.1 is a private or loopback address/);
    await expect(get(`${feedBase}/feed.xml`, ['127.0.0.1']).then((r) => r.text.length)).resolves.toBeGreaterThan(0);
    await expect(get(`http://[::1]:${port}/`, [])).rejects.toThrow(/::1 is a private or loopback address/);
    await expect(guardedGetText({ url: `${feedBase}/ep1.mp3`, allowPrivateTargets: ['127.0.0.1'], timeoutMs: 5000, maxBytes: 100 })).rejects.toThrow(/more than the 100 allowed/);
    for (const a of ['10.1.2.3', '172.16.0.1', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::ffff:127.0.0.1', 'fd00::1', 'fe80::1'])
      expect(isPrivateAddress(a)).toBe(true);
    for (const a of ['1.1.1.1', '8.8.8.8', '2606:4700:4700::1111']) expect(isPrivateAddress(a)).toBe(false);
  });
});

describe('shutdown', () => {
  it('stops a running episode download, leaves no partial file, and marks it interrupted at the next start', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-rest-podcasts-stop-'));
    const env = { ALLOW_PRIVATE_TARGETS: '127.0.0.1', TONEARM_LIBRARY_WATCH: '0' };
    const first = await startTestServer({ env, dataDir });
    const c = new RestClient(first, { username: 'admin', password: 'correct horse battery' });
    await c.ok('createPodcastChannel', { url: `${feedBase}/slow-feed.xml` });
    const id = (await c.ok('getNewestPodcasts')).newestPodcasts.episode[0].id;
    await c.ok('downloadPodcastEpisode', { id });
    const folder = path.join(dataDir, 'podcasts');
    await until('the partial file', async () =>
      (fs.existsSync(folder) && fs.readdirSync(folder, { recursive: true }).map(String).some((f) => f.endsWith('.part'))) || undefined,
    );
    expect((await c.ok('getPodcastEpisode', { id })).podcastEpisode.status).toBe('downloading');
    await first.stop();
    await new Promise((r) => setTimeout(r, 100));
    expect(fs.readdirSync(path.join(dataDir, 'podcasts'), { recursive: true }).map(String).filter((f) => f.includes('.mp3'))).toEqual([]);
    const second = await startTestServer({ env, dataDir });
    try {
      const c2 = new RestClient(second, { username: 'admin', password: 'correct horse battery' });
      expect((await c2.ok('getPodcastEpisode', { id })).podcastEpisode.status).toBe('error');
    } finally {
      await second.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
