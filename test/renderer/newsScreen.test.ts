import { container, find, one, click, setOrigin, text, waitFor, type El } from './dom.js';
import { h, render, type FunctionComponent } from 'preact';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_NEWS_FEEDS } from '../../server/integrations/news/sources.js';
import { startNewsFeedFake, type NewsFeedFake } from '../fakes/news/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The News screen rendered against a real server: articles newest first from the tables of migration
 * 055, the refresh line, hiding and showing a publisher (PATCH replaces the list), "Show more", the
 * feed switch for administrators only, and the unconfigured and switched-off states.
 */

// Renderer modules are loaded by a computed specifier so the server's typecheck does not follow them into TSX.
const renderer = (p: string) => import(/* @vite-ignore */ `../../renderer/src/${p}`);
interface SessionModule {
  session: { set(v: { token: string | null; user: unknown; notice: null }): void };
}

let server: TestServer;
let feeds: NewsFeedFake;
let NewsScreen: FunctionComponent;
let sessionModule: SessionModule;
let user: { token: string; user: unknown };
let admin: { token: string; user: unknown };
let root: El;

const ARTICLES = 65;
const publisherOf = (i: number) => ['Publisher One', 'Publisher Two', 'Publisher Three'][i % 3]!;
const now = Date.now();

async function signIn(username: string, password: string) {
  const s = (await (await server.api('/api/auth/login', { method: 'POST', json: { username, password } })).json()) as { token: string; user: unknown };
  return { token: s.token, user: s.user };
}

function show(as: { token: string; user: unknown }): El {
  sessionModule.session.set({ token: as.token, user: as.user, notice: null });
  root = container();
  render(h(NewsScreen, {}), root as unknown as Element);
  return root;
}

const titles = (r: El) => find(r, 'li.news-item .track-title').map(text);
const publishers = (r: El) => find(r, 'li.news-item').map((li) => li.getAttribute('data-publisher'));
const blockedOf = async (token: string) => ((await (await server.api('/api/news/preferences', { token })).json()) as { blockedPublishers: string[] }).blockedPublishers;

beforeAll(async () => {
  feeds = await startNewsFeedFake();
  server = await startTestServer({ env: { ALLOW_PRIVATE_TARGETS: '127.0.0.1', TONEARM_UPSTREAM_SPACING_MS: '0' } });
  setOrigin(server.url, '/news');
  // Never the real publications: one local custom feed, and a refresh that has just finished (so reading does not start one).
  const feed = { url: feeds.feedUrl('/feeds/news.rss'), name: 'Local Feed' };
  server.ctx.settings.update({ integrations: { news: { disabledFeeds: DEFAULT_NEWS_FEEDS.map((f) => f.id), feeds: [feed] } } });
  const db = server.ctx.db;
  db.prepare(
    `INSERT INTO news_refresh_state (id, started_at, finished_at, checked_artist_count, queued_artist_count, failed_feeds_json, warning)
     VALUES (1, ?, ?, 3, 2, ?, '1 of 2 feeds could not be read')`,
  ).run(now, now, JSON.stringify([{ id: 'abcdef012345', name: 'Broken Feed', error: 'HTTP 500' }]));
  db.transaction(() => {
    const artist = db.prepare('INSERT INTO library_artists (identity_key, name, sort_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
    const ids = ['Aurora Lane', 'Velvet Static', 'Copper Moth'].map((n) => Number(artist.run(`name:${n.toLowerCase()}`, n, n.toLowerCase(), now, now).lastInsertRowid));
    const article = db.prepare('INSERT INTO news_articles (dedupe_key, feed_id, publisher, title, summary, url, published_at, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    const link = db.prepare('INSERT INTO news_article_artists (article_id, artist_id, artist_name) VALUES (?, ?, ?)');
    // Inserted oldest first, so the newest-first order is the server's doing, not the insert order.
    for (let i = ARTICLES - 1; i >= 0; i--) {
      const id = Number(article.run(`https://news.example.org/${i}`, `feed${i % 3}`, publisherOf(i), `Story ${i}`, `About story ${i}`, `https://news.example.org/${i}`, now - i * 60_000, now).lastInsertRowid);
      link.run(id, ids[i % 3]!, 'x');
    }
  })();
  const created = await server.api('/api/users', { method: 'POST', token: server.admin.token, json: { username: 'pat', password: 'password-123' } });
  expect(created.status).toBeLessThan(300);
  user = await signIn('pat', 'password-123');
  admin = await signIn(server.admin.username, server.admin.password);
  sessionModule = (await renderer('session.ts')) as SessionModule;
  ({ NewsScreen } = (await renderer('news/NewsScreen.tsx')) as { NewsScreen: FunctionComponent });
});

afterEach(() => {
  if (root) render(null, root as unknown as Element);
});

afterAll(async () => {
  await server?.stop();
  await feeds?.close();
});

describe('News screen', () => {
  it('lists the articles newest first with their artists, and says what the last refresh did', async () => {
    const r = show(user);
    await waitFor(() => expect(titles(r)).toHaveLength(60));
    expect(titles(r).slice(0, 3)).toEqual(['Story 0', 'Story 1', 'Story 2']);
    const first = find(r, 'li.news-item')[0]!;
    expect(one(first, 'a', 'Story 0').getAttribute('href')).toBe('https://news.example.org/0');
    expect(one(first, 'a', 'Aurora Lane').getAttribute('href')).toMatch(/^\/library\/artists\/\d+$/);
    const line = text(one(r, '[data-testid="news-refresh"]'));
    expect(line).toContain('Checked 3 artists');
    // No NewsAPI key on this server: its budget and search queue do not apply (issue 24 §6).
    expect(line).not.toContain('NewsAPI');
    expect(text(r)).toContain('1 of 2 feeds could not be read');
    expect(text(r)).toContain('Broken Feed');
    // Not an administrator: no feed switches.
    expect(find(r, 'button', /Switch off/)).toEqual([]);
  });

  it('shows the NewsAPI budget and search queue only once a NewsAPI key is set (issue 24 §6)', async () => {
    server.ctx.settings.update({ integrations: { news: { apiKey: 'newsapi-test-key' } } });
    try {
      const r = show(user);
      await waitFor(() => expect(text(one(r, '[data-testid="news-refresh"]'))).toMatch(/\d+ NewsAPI calls left/));
      expect(text(one(r, '[data-testid="news-refresh"]'))).toContain('2 artists waiting for a NewsAPI search');
    } finally {
      server.ctx.settings.update({ integrations: { news: { apiKey: '' } } });
    }
  });

  it('"Show more" asks for the larger page and the button goes when everything is there', async () => {
    const r = show(user);
    await waitFor(() => expect(titles(r)).toHaveLength(60));
    click(one(r, 'button', 'Show more'));
    await waitFor(() => expect(titles(r)).toHaveLength(ARTICLES));
    expect(titles(r).at(-1)).toBe(`Story ${ARTICLES - 1}`);
    expect(find(r, 'button', 'Show more')).toEqual([]);
  });

  it('hiding a publisher saves the list on the server and removes its stories; "Show again" brings them back', async () => {
    const r = show(user);
    await waitFor(() => expect(titles(r)).toHaveLength(60));
    expect(publishers(r)).toContain('Publisher One');
    click(find(r, 'button', 'Hide stories from Publisher One')[0]!);
    await waitFor(() => expect(publishers(r)).not.toContain('Publisher One'));
    expect(await blockedOf(user.token)).toEqual(['Publisher One']);
    // The page refills from the server: every story of the other two publishers (43 of 65), newest first.
    await waitFor(() => expect(titles(r)).toHaveLength(ARTICLES - 22));
    expect(find(r, 'button', 'Show more')).toEqual([]);
    expect(titles(r).slice(0, 2)).toEqual(['Story 1', 'Story 2']);
    expect(text(one(r, 'ul', 'Hidden publishers'))).toContain('Publisher One');
    // Blocking is per user: the administrator still sees everything.
    expect(await blockedOf(admin.token)).toEqual([]);

    click(find(r, 'button', 'Hide stories from Publisher Two')[0]!);
    await waitFor(() => expect(publishers(r).every((p) => p === 'Publisher Three')).toBe(true));
    expect(await blockedOf(user.token)).toEqual(['Publisher One', 'Publisher Two']);

    click(one(r, 'button', 'Show stories from Publisher One again'));
    await waitFor(() => expect(publishers(r)).toContain('Publisher One'));
    expect(await blockedOf(user.token)).toEqual(['Publisher Two']);
    expect(titles(r)[0]).toBe('Story 0');
  });

  it('an administrator can switch a failing feed off', async () => {
    const r = show(admin);
    await waitFor(() => expect(titles(r)).toHaveLength(60));
    click(one(r, 'button', 'Switch off the feed Broken Feed'));
    await waitFor(() => expect(text(r)).toContain('Broken Feed is switched off for everyone'));
    expect(server.ctx.settings.get().integrations.news.disabledFeeds).toContain('abcdef012345');
  });

  it('without a news source it says so, and with news switched off it says that', async () => {
    server.ctx.settings.update({ integrations: { news: { feeds: [] } } });
    let r = show(user);
    await waitFor(() => expect(text(r)).toContain('No news source'));
    expect(text(r)).toContain('Ask an administrator');
    render(null, r as unknown as Element);

    server.ctx.settings.update({ integrations: { news: { enabled: false } } });
    r = show(admin);
    await waitFor(() => expect(text(r)).toContain('Artist news is switched off'));
    // The link names the place in words and opens the news card there (issue 24 §5).
    expect(one(r, 'a', 'Settings → Integrations').getAttribute('href')).toMatch(/^\/settings\/integrations(#|$)/);
    expect(titles(r)).toEqual([]);
  });
});
