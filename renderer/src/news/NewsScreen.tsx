import { useState } from 'preact/hooks';
import { ApiError } from '../api';
import { Empty, ErrorMessage, Loading, Notice, useAction, useAsync } from '../components/ui';
import { SettingsPointer } from '../discover/parts';
import { Link } from '../router';
import { isAdmin, session } from '../session';
import { useStore } from '../store';
import { disableFeed, loadNews, loadNewsPreferences, saveBlockedPublishers, NEWS_MAX, NEWS_PAGE, type Article, type NewsRefresh } from './api';
import { newestFirst, refreshLine, withoutPublishers } from './logic';
import '../discover/discover.css';
import { withBase } from '../base';
import { dateTime } from '../time';

/** News about the library's artists, newest first, without the publishers the user blocked. */
export function NewsScreen() {
  const admin = isAdmin(useStore(session).user);
  const [limit, setLimit] = useState(NEWS_PAGE);
  const news = useAsync((signal) => loadNews(limit, signal), [limit]);
  const prefs = useAsync((signal) => loadNewsPreferences(signal), []);
  const [note, setNote] = useState<string | null>(null);
  const blocked = prefs.data?.blockedPublishers ?? [];

  const setBlocked = useAction(async (next: string[], words: string) => {
    const saved = await saveBlockedPublishers(next);
    prefs.setData(saved);
    if (news.data) news.setData({ ...news.data, articles: withoutPublishers(news.data.articles, saved.blockedPublishers) });
    setNote(words);
    news.reload();
  });
  const turnOff = useAction(async (feed: { id: string; name: string }) => {
    await disableFeed(feed.id);
    setNote(`${feed.name} is switched off for everyone; its stories stay until they age out.`);
    news.reload();
  });

  if (news.error instanceof ApiError && news.error.code === 'NOT_CONFIGURED')
    return (
      <div class="news">
        <h1>News</h1>
        <Empty title="Artist news is switched off">
          <SettingsPointer setting="integrations.news.enabled" what="artist news (switch it on)" />
        </Empty>
      </div>
    );

  const n = news.data;
  const articles = n ? newestFirst(withoutPublishers(n.articles, blocked)) : [];
  return (
    <div class="news">
      <h1>News</h1>
      {note && <Notice tone="success">{note}</Notice>}
      <ErrorMessage error={setBlocked.error ?? turnOff.error} />
      {news.error ? <ErrorMessage error={news.error} onRetry={news.reload} /> : null}
      {!n && !news.error && <Loading label="Loading news…" />}
      {n && <RefreshInfo refresh={n.refresh} admin={admin} busy={turnOff.busy} onTurnOff={(f) => void turnOff.trigger(f)} onCheck={news.reload} />}
      {n && !n.configured && (
        <Empty title="No news source">
          <p>Every news feed is switched off and no NewsAPI key is set.</p>
          <SettingsPointer setting="integrations.news" what="a news feed or a NewsAPI key" />
        </Empty>
      )}
      {n && n.configured && articles.length === 0 && (
        <Empty title="No news about your artists yet">
          <p>{n.refresh.isRefreshing ? 'The feeds are being read now; check again in a minute.' : 'Stories appear here when a feed mentions an artist in your library.'}</p>
        </Empty>
      )}
      {articles.length > 0 && (
        <ul class="news-list" aria-label="News">
          {articles.map((a) => (
            <ArticleItem
              key={a.id}
              article={a}
              admin={admin}
              busy={setBlocked.busy || turnOff.busy}
              onBlock={() => void setBlocked.trigger([...blocked, a.source], `Stories from ${a.source} are hidden.`)}
              onTurnOff={() => void turnOff.trigger({ id: a.feedId, name: a.source })}
            />
          ))}
        </ul>
      )}
      {n?.hasMore && limit < NEWS_MAX && (
        <div class="pager">
          <button type="button" disabled={news.loading} onClick={() => setLimit(NEWS_MAX)}>
            Show more
          </button>
        </div>
      )}
      {blocked.length > 0 && (
        <section class="discover-section" aria-labelledby="news-blocked-title">
          <h2 id="news-blocked-title">Hidden publishers</h2>
          <ul class="feedback-list" aria-label="Hidden publishers">
            {blocked.map((p) => (
              <li key={p}>
                <span>{p}</span>
                <button
                  type="button"
                  class="link-button"
                  aria-label={`Show stories from ${p} again`}
                  disabled={setBlocked.busy}
                  onClick={() => void setBlocked.trigger(blocked.filter((x) => x !== p), `Stories from ${p} are shown again.`)}
                >
                  Show again
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

function ArticleItem({ article: a, admin, busy, onBlock, onTurnOff }: { article: Article; admin: boolean; busy: boolean; onBlock: () => void; onTurnOff: () => void }) {
  const [noImage, setNoImage] = useState(false);
  return (
    <li class="news-item" data-publisher={a.source}>
      {a.imageUrl && !noImage && <img class="news-image" src={withBase(a.imageUrl)} alt="" loading="lazy" decoding="async" onError={() => setNoImage(true)} />}
      <div class="news-text">
        <span class="track-title">
          {a.url ? (
            <a href={a.url} target="_blank" rel="noopener noreferrer">
              {a.title}
            </a>
          ) : (
            a.title
          )}
        </span>
        <span class="muted small">
          {a.source} · <time dateTime={a.publishedAt}>{dateTime(a.publishedAt)}</time>
          {a.artists.length > 0 && ' · '}
          {a.artists.map((x, i) => (
            <span key={x.id}>
              {i > 0 && ', '}
              <Link href={`/library/artists/${x.id}`}>{x.name}</Link>
            </span>
          ))}
        </span>
        {a.description && <span class="small">{a.description}</span>}
        <span class="news-actions">
          <button type="button" class="link-button" disabled={busy} aria-label={`Hide stories from ${a.source}`} onClick={onBlock}>
            Hide {a.source}
          </button>
          {admin && a.feedId !== 'newsapi' && (
            <button type="button" class="link-button" disabled={busy} aria-label={`Switch off the feed of ${a.source} for everyone`} onClick={onTurnOff}>
              Switch this feed off
            </button>
          )}
        </span>
      </div>
    </li>
  );
}

function RefreshInfo({ refresh: r, admin, busy, onTurnOff, onCheck }: { refresh: NewsRefresh; admin: boolean; busy: boolean; onTurnOff: (f: { id: string; name: string }) => void; onCheck: () => void }) {
  return (
    <div class="news-refresh">
      <p class="muted small" data-testid="news-refresh">
        {refreshLine(r)}{' '}
        {r.isRefreshing && (
          <button type="button" class="link-button" onClick={onCheck}>
            Check again
          </button>
        )}
      </p>
      {r.warning && (
        <Notice tone="warn" reveal={false}>
          {r.warning}
        </Notice>
      )}
      {r.failedFeeds && r.failedFeeds.length > 0 && (
        <ul class="feedback-list" aria-label="Feeds that could not be read">
          {r.failedFeeds.map((f) => (
            <li key={f.id}>
              <span>
                {f.name}: <span class="muted small">{f.error}</span>
              </span>
              {admin && (
                <button type="button" class="link-button" disabled={busy} aria-label={`Switch off the feed ${f.name}`} onClick={() => onTurnOff(f)}>
                  Switch off
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
