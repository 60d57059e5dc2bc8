-- Artist news (issue 13 item 4): articles read from the news feeds and NewsAPI, the library artists
-- each one is about, per-user publisher blocking, the refresh state and a shared request budget.

CREATE TABLE news_articles (
  id INTEGER PRIMARY KEY,
  -- The article's link (normalised), else the feed's guid: one row per article across feeds.
  dedupe_key TEXT NOT NULL UNIQUE,
  -- A feed id (first 12 hex of sha1(url)) or 'newsapi'.
  feed_id TEXT NOT NULL,
  publisher TEXT NOT NULL,
  title TEXT NOT NULL,
  summary TEXT,
  url TEXT,
  image_url TEXT,
  -- The picture behind the server's image proxy (/api/image-proxy/<key>), registered when stored.
  image_proxy_url TEXT,
  published_at INTEGER NOT NULL,
  fetched_at INTEGER NOT NULL
);
CREATE INDEX news_articles_by_published ON news_articles(published_at, id);

CREATE TABLE news_article_artists (
  article_id INTEGER NOT NULL REFERENCES news_articles(id) ON DELETE CASCADE,
  artist_id INTEGER NOT NULL,
  artist_name TEXT NOT NULL,
  PRIMARY KEY (article_id, artist_id)
) WITHOUT ROWID;
CREATE INDEX news_article_artists_by_artist ON news_article_artists(artist_id, article_id);

CREATE TABLE news_preferences (
  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  blocked_publishers_json TEXT NOT NULL DEFAULT '[]',
  updated_at INTEGER NOT NULL
);

-- When each library artist was last searched on NewsAPI (the due ones are searched first).
CREATE TABLE news_artist_checks (
  artist_id INTEGER PRIMARY KEY,
  checked_at INTEGER NOT NULL
);

-- One row: the last refresh and what it reported.
CREATE TABLE news_refresh_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  started_at INTEGER,
  finished_at INTEGER,
  checked_artist_count INTEGER NOT NULL DEFAULT 0,
  queued_artist_count INTEGER NOT NULL DEFAULT 0,
  failed_feeds_json TEXT NOT NULL DEFAULT '[]',
  warning TEXT
);

-- Requests made to a rate-limited upstream (NewsAPI), one row each, for a rolling 24-hour budget
-- shared by every feature that asks it. Rows older than the window are pruned.
CREATE TABLE upstream_budget_calls (
  id INTEGER PRIMARY KEY,
  service TEXT NOT NULL,
  purpose TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX upstream_budget_calls_by_service ON upstream_budget_calls(service, at);
