import { useState } from 'preact/hooks';
import { api } from '../api';
import { Card, ErrorMessage, Loading, Notice, useAction, useAsync } from '../components/ui';
import { Input, SourceCard, type FieldSpec, type SourceSpec } from './SourceCard';
import type { SettingsState } from './useSettings';

/** The services Tonearm reads from that are not download sources: Last.fm, Ticketmaster, news, metadata, Spotify, AcoustID. */
export function IntegrationsSettings({ settings }: { settings: SettingsState }) {
  return (
    <>
      <SourceCard settings={settings} title="Last.fm" id="integration-lastfm" intro="Last.fm’s API gives Discover its similar artists, tags and charts. Create an API account at last.fm/api." specs={[lastfmSpec]} />
      <SourceCard
        settings={settings}
        title="Nearby shows (Ticketmaster)"
        id="integration-ticketmaster"
        intro="Ticketmaster’s Discovery API lists concerts of your artists near you on the Discover screen."
        specs={[ticketmasterSpec]}
      />
      <SourceCard settings={settings} title="News" id="integration-news" intro="Artist news from music publications’ feeds (below), and optionally NewsAPI.org searches." specs={[newsSpec]} />
      <NewsFeedsCard settings={settings} />
      <SourceCard
        settings={settings}
        title="Metadata"
        id="integration-metadata"
        intro="Artist and release pages come from MusicBrainz, asked after a Lidarr-format metadata server when one is set."
        specs={[musicbrainzSpec, metadataSpec]}
      />
      <SourceCard settings={settings} title="Spotify" id="integration-spotify" intro="A Spotify app of your own (client credentials) lets Tonearm look up pasted Spotify links." specs={[spotifySpec]} />
      <SourceCard
        settings={settings}
        title="AcoustID"
        id="integration-acoustid"
        intro={
          <>
            AcoustID identifies music by its sound: downloads are checked against it, and Settings → Library can identify files without MusicBrainz ids. It needs an
            application API key, which is free: register an application at{' '}
            <a href="https://acoustid.org/new-application" target="_blank" rel="noreferrer">
              acoustid.org
            </a>
            .
          </>
        }
        specs={[acoustidSpec]}
      />
    </>
  );
}

const secretField = (key: string, label: string): FieldSpec => ({ key, label, kind: 'password' });

export const lastfmSpec: SourceSpec = { key: 'lastfm', name: 'Last.fm', fields: [secretField('apiKey', 'API key'), secretField('apiSecret', 'Shared secret')], priority: false, needs: ['apiKey'] };
export const ticketmasterSpec: SourceSpec = {
  key: 'ticketmaster',
  name: 'Ticketmaster',
  fields: [
    secretField('apiKey', 'API key'),
    { key: 'location', label: 'Location', placeholder: 'Berlin, 10115 or 52.52,13.40', hint: 'A city, a ZIP or postcode, or latitude,longitude; empty: the server’s approximate location.' },
    { key: 'radiusMiles', label: 'Radius (miles)', kind: 'number', min: 5, max: 250 },
  ],
  priority: false,
  needs: ['apiKey'],
};
export const newsSpec: SourceSpec = {
  key: 'news',
  name: 'artist news',
  fields: [
    { ...secretField('apiKey', 'NewsAPI.org API key'), hint: 'Optional: feeds work without it.' },
    { key: 'requestBudget', label: 'NewsAPI requests per 24 hours', kind: 'number', min: 0, max: 100_000, hint: 'The developer plan allows 100.' },
  ],
  priority: false,
};
export const musicbrainzSpec: SourceSpec = {
  key: 'musicbrainz',
  name: 'MusicBrainz',
  fields: [{ key: 'email', label: 'Contact e-mail', hint: 'MusicBrainz asks every client for a contact; it is sent in the User-Agent.' }],
  priority: false,
};
export const metadataSpec: SourceSpec = {
  key: 'metadata',
  name: 'the metadata server',
  fields: [{ key: 'baseUrl', label: 'Metadata server address', kind: 'url', placeholder: 'https://api.example.org', hint: 'A Lidarr-format (SkyHook) server; empty: TONEARM_METADATA_URL or none.' }],
  priority: false,
  needs: ['baseUrl'],
  setupNote: 'A TONEARM_METADATA_URL given when the server starts is used without it.',
  environment: { field: 'baseUrl', variable: 'TONEARM_METADATA_URL', read: (s) => s.environment?.metadataUrl },
};
/** The server has no connection test for AcoustID, so the card has no Test button. */
export const acoustidSpec: SourceSpec = {
  key: 'acoustid',
  name: 'AcoustID',
  fields: [{ ...secretField('apiKey', 'Application API key'), hint: 'A free application key from acoustid.org (not a user key).' }],
  priority: false,
  needs: ['apiKey'],
};
export const spotifySpec: SourceSpec = { key: 'spotify', name: 'Spotify', fields: [{ key: 'clientId', label: 'Client ID' }, secretField('clientSecret', 'Client secret')], priority: false, needs: ['clientId', 'clientSecret'] };

// ---- news feeds ----

export interface NewsFeed {
  id: string;
  name: string;
  url: string;
  group: string;
  builtIn: boolean;
  enabled: boolean;
}

type NewsSettings = { feeds: { url: string; name: string }[]; disabledFeeds: string[] };

/** The built-in feeds with a switch each, and the custom ones (add, remove, switch). */
function NewsFeedsCard({ settings }: { settings: SettingsState }) {
  const feeds = useAsync((signal) => api<{ feeds: NewsFeed[] }>('/api/news/feeds', { signal }), []);
  const [url, setUrl] = useState('');
  const [name, setName] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const news = () => ((settings.data?.integrations ?? {}) as { news?: NewsSettings }).news ?? { feeds: [], disabledFeeds: [] };
  const toggle = useAction(async (feed: NewsFeed, on: boolean) => {
    const s = news();
    const disabledFeeds = on ? s.disabledFeeds.filter((d) => d !== feed.id && d !== feed.url) : [...s.disabledFeeds.filter((d) => d !== feed.id), feed.id];
    await settings.save({ integrations: { news: { disabledFeeds } } });
    setDone(`${feed.name} is ${on ? 'read again' : 'no longer read'}.`);
    feeds.reload();
  });
  const add = useAction(async () => {
    const s = news();
    await settings.save({ integrations: { news: { feeds: [...s.feeds, { url: url.trim(), name: name.trim() }] } } });
    setDone(`Feed added: ${name.trim() || url.trim()}.`);
    setUrl('');
    setName('');
    feeds.reload();
  });
  const remove = useAction(async (feed: NewsFeed) => {
    const s = news();
    await settings.save({
      integrations: { news: { feeds: s.feeds.filter((f) => f.url !== feed.url), disabledFeeds: s.disabledFeeds.filter((d) => d !== feed.id && d !== feed.url) } },
    });
    setDone(`Feed removed: ${feed.name}.`);
    feeds.reload();
  });
  const list = feeds.data?.feeds ?? [];
  const row = (f: NewsFeed) => (
    <li key={f.id} data-feed={f.id} class="feed-row">
      <label class="switch">
        <input type="checkbox" role="switch" checked={f.enabled} disabled={toggle.busy} onChange={(e) => void toggle.trigger(f, e.currentTarget.checked)} />
        <span>{f.name}</span>
      </label>
      <span class="muted small"> {f.builtIn ? f.group : f.url}</span>
      {!f.builtIn && (
        <button type="button" class="link-button" aria-label={`Remove ${f.name}`} disabled={remove.busy} onClick={() => void remove.trigger(f)}>
          Remove
        </button>
      )}
    </li>
  );
  return (
    <Card title="News feeds" id="news-feeds">
      {feeds.loading && !feeds.data && <Loading label="Loading the feeds…" />}
      <ErrorMessage error={feeds.error} onRetry={feeds.reload} />
      {list.length > 0 && (
        <>
          <h3>Publications</h3>
          <ul class="feed-list" aria-label="Built-in feeds">
            {list.filter((f) => f.builtIn).map(row)}
          </ul>
          <h3>Your feeds</h3>
          {list.some((f) => !f.builtIn) ? (
            <ul class="feed-list" aria-label="Custom feeds">
              {list.filter((f) => !f.builtIn).map(row)}
            </ul>
          ) : (
            <p class="muted">No feeds of your own yet.</p>
          )}
        </>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (url.trim()) void add.trigger();
        }}
      >
        <div class="field-row">
          <Input id="news-feed-url" field={{ key: 'url', label: 'Feed address (RSS or Atom)', kind: 'url', placeholder: 'https://example.org/feed' }} value={url} onInput={(v) => (setUrl(v), setDone(null))} />
          <Input id="news-feed-name" field={{ key: 'name', label: 'Name', hint: 'Optional: empty, the site’s address.' }} value={name} onInput={setName} />
        </div>
        <div class="form-actions">
          <button type="submit" disabled={!url.trim() || add.busy}>
            {add.busy ? 'Adding…' : 'Add feed'}
          </button>
        </div>
      </form>
      {done && <Notice tone="success">{done}</Notice>}
      <ErrorMessage error={toggle.error ?? add.error ?? remove.error} />
    </Card>
  );
}
