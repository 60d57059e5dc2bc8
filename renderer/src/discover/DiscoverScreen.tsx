import { useEffect, useState } from 'preact/hooks';
import { Empty, ErrorMessage, Loading, Notice, useAction, useAsync, useReveal } from '../components/ui';
import { Link, navigate, useLocation } from '../router';
import { session } from '../session';
import { listen } from '../socket';
import { useStore } from '../store';
import { loadDiscover, loadRelated, refreshDiscover, PAGE, type DiscoverEntry, type DiscoveryUpdate, type DiscoverView } from './api';
import { emptyText, pageRange, progressText, progressValue, sourceLabel, staleText, without } from './logic';
import { ArtistGrid, DiscoverSection, DiscoverTags, SettingsPointer, useFeedback, type FeedbackState } from './parts';
import { Presets } from './Presets';
import { ShowsTab } from './ShowsTab';
import { TagsTab } from './TagsTab';
import { TuningTab } from './TuningTab';
import './discover.css';
import { dateTime } from '../time';

const TABS = [
  { path: '/discover', label: 'For you' },
  { path: '/discover/tags', label: 'Tags and genres' },
  { path: '/discover/shows', label: 'Nearby shows' },
  { path: '/discover/tuning', label: 'Feedback and preferences' },
] as const;

/** Discover (api.md §4.8): recommendations, charts, tags, editorial presets, nearby shows and tuning. */
export function DiscoverScreen({ path }: { path: string }) {
  const tab = TABS.find((t) => t.path === path) ?? TABS[0];
  return (
    <div class="discover">
      <h1>Discover</h1>
      <nav class="tabs" aria-label="Discover">
        {TABS.map((t) => (
          <Link key={t.path} href={t.path} class="tab" aria-current={t.path === tab.path ? 'page' : undefined}>
            {t.label}
          </Link>
        ))}
      </nav>
      {tab.path === '/discover' && <ForYou />}
      {tab.path === '/discover/tags' && <TagsTab />}
      {tab.path === '/discover/shows' && <ShowsTab />}
      {tab.path === '/discover/tuning' && <TuningTab />}
    </div>
  );
}

/** Live refresh progress for the signed-in user from /ws channel `discovery`. */
function useDiscoveryUpdates(onFinished: () => void): [DiscoveryUpdate | null, (u: DiscoveryUpdate | null) => void] {
  const userId = useStore(session).user?.id ?? null;
  const [update, setUpdate] = useState<DiscoveryUpdate | null>(null);
  useEffect(
    () =>
      listen(['discovery'], (msg) => {
        if (msg.type !== 'discovery_update') return;
        const u = msg as unknown as DiscoveryUpdate;
        if (u.userId !== null && userId !== null && u.userId !== userId) return;
        setUpdate(u);
        if (!u.isUpdating) onFinished();
      }),
    [userId],
  );
  return [update, setUpdate];
}

function ForYou() {
  const loc = useLocation();
  const offset = Math.max(0, Number(loc.query.get('offset')) || 0);
  const view = useAsync((signal) => loadDiscover(offset, signal), [offset]);
  const feedback = useFeedback();
  const [update, setUpdate] = useDiscoveryUpdates(view.reload);
  const [removedNote, setRemovedNote] = useState<string | null>(null);
  const [related, setRelated] = useState<DiscoverEntry | null>(null);
  const refresh = useAction(async () => {
    await refreshDiscover();
    setUpdate(null); // the last update said "finished"; this view's own flag speaks until the next one
    if (view.data) view.setData({ ...view.data, isUpdating: true });
  });

  const updating = update ? update.isUpdating : (view.data?.isUpdating ?? false);
  // The refresh's last update can come before this page listens on /ws, or be lost on a reconnect:
  // while a refresh seems to run, ask the server itself every few seconds whether it still does.
  useEffect(() => {
    if (!updating) return;
    const check = setInterval(() => {
      loadDiscover(offset)
        .then((fresh) => {
          if (fresh.isUpdating) return;
          setUpdate(null);
          view.setData(fresh);
        })
        .catch(() => undefined);
    }, 4000);
    return () => clearInterval(check);
  }, [updating, offset]);

  if (view.error && !view.data) return <ErrorMessage error={view.error} onRetry={view.reload} />;
  const v = view.data;
  if (!v) return <Loading label="Loading your recommendations…" />;

  const onLess = (name: string, removed: number) => {
    setRemovedNote(removed > 1 ? `Fewer artists like ${name}: ${name} and ${removed - 1} similar artists left your recommendations.` : `${name} left your recommendations.`);
    view.setData({ ...v, recommendations: without(v.recommendations, [name]), recommendationCount: Math.max(0, v.recommendationCount - removed) });
  };
  const goTo = (next: number) => navigate(next > 0 ? `/discover?offset=${next}` : '/discover');
  const hasPrev = offset > 0;
  const hasNext = offset + v.recommendations.length < v.recommendationCount;

  return (
    <>
      <div class="discover-status">
        <p class="muted small">
          {v.lastUpdated ? `Updated ${dateTime(v.lastUpdated)}` : 'Not updated yet'}
          {v.provider ? ` · recommendations from ${sourceLabel(v.provider)}` : ''}
        </p>
        <button type="button" disabled={refresh.busy || updating} onClick={() => void refresh.trigger()}>
          {updating ? 'Updating…' : 'Refresh'}
        </button>
      </div>
      <ErrorMessage error={refresh.error} />
      {updating && <RefreshProgress update={update} />}
      {!v.configured && (
        <Notice tone="warn">
          Discovery is not set up: it needs a Last.fm API key or ListenBrainz. <SettingsPointer setting="integrations.lastfm.apiKey" what="a Last.fm API key" />
        </Notice>
      )}
      {v.configured && !v.capabilities.personalizedRecommendations && (
        <Notice tone="info" reveal={false}>
          Without Last.fm, recommendations come from {sourceLabel(v.provider)} with fewer features (no similar artists or tag search).{' '}
          <SettingsPointer setting="integrations.lastfm.apiKey" what="a Last.fm API key" />
        </Notice>
      )}
      {v.stale && !updating && (
        <Notice tone="warn" reveal={false}>
          {staleText(v)}
        </Notice>
      )}
      {removedNote && <Notice tone="success">{removedNote}</Notice>}

      <DiscoverSection
        id="discover-recommended"
        title="Recommended for you"
        actions={v.recommendationCount > 0 ? <span class="muted small">{pageRange(offset, v.recommendations.length, v.recommendationCount)}</span> : undefined}
      >
        {v.recommendations.length > 0 ? (
          <ArtistGrid entries={v.recommendations} label="Recommended artists" feedback={feedback} onLess={onLess} onRelated={v.capabilities.relatedArtists ? setRelated : undefined} />
        ) : (
          <Empty title={updating ? 'Finding artists for you…' : 'No recommendations yet'}>
            {!updating && <p>{emptyText(v)}</p>}
          </Empty>
        )}
        {(hasPrev || hasNext) && (
          <div class="pager">
            <button type="button" disabled={!hasPrev} onClick={() => goTo(Math.max(0, offset - PAGE))}>
              Previous
            </button>
            <button type="button" disabled={!hasNext} onClick={() => goTo(offset + PAGE)}>
              Next
            </button>
          </div>
        )}
      </DiscoverSection>

      {related && <RelatedPanel artist={related} feedback={feedback} onClose={() => setRelated(null)} />}

      {v.basedOn.length > 0 && (
        <DiscoverSection id="discover-based-on" title="Based on">
          <ul class="based-on" aria-label="Artists your recommendations are based on">
            {v.basedOn.slice(0, 20).map((s) => (
              <li key={`${s.name}-${s.source}`}>
                <span>{s.name}</span> <span class="muted small">{sourceLabel(s.source)}</span>
              </li>
            ))}
          </ul>
        </DiscoverSection>
      )}

      {(v.topTags.length > 0 || v.topGenres.length > 0) && (
        <DiscoverSection id="discover-taste" title="Your tags and genres">
          <DiscoverTags tags={v.topTags} label="Your top tags" />
          <DiscoverTags tags={v.topGenres.filter((g) => !v.topTags.includes(g))} label="Your top genres" />
        </DiscoverSection>
      )}

      {v.discoverPlaylists.length > 0 && <Presets presets={v.discoverPlaylists} />}

      {v.globalTop.length > 0 && (
        <DiscoverSection id="discover-global" title="Popular everywhere">
          <ArtistGrid entries={v.globalTop} label="Popular artists" feedback={feedback} />
        </DiscoverSection>
      )}

      {v.recommendations.length === 0 &&
        v.fallbackGenres
          .filter((g) => g.artists.length > 0)
          .map((g) => (
            <DiscoverSection key={g.name} id={`discover-genre-${g.name.replace(/[^a-z0-9]+/gi, '-')}`} title={`Popular in ${g.name}`}>
              <ArtistGrid entries={g.artists} label={`Popular in ${g.name}`} feedback={feedback} />
            </DiscoverSection>
          ))}
    </>
  );
}

function RefreshProgress({ update }: { update: DiscoveryUpdate | null }) {
  const value = progressValue(update?.updateProgress ?? null);
  return (
    <div class="discover-progress" role="status" aria-live="polite">
      <span>{update ? progressText(update) : 'Updating your recommendations…'}</span>
      {value === null ? <progress aria-label="Update progress" /> : <progress aria-label="Update progress" max={100} value={value} />}
    </div>
  );
}

/** Artists related to one recommendation (Last.fm similar artists). */
function RelatedPanel({ artist, feedback, onClose }: { artist: DiscoverEntry; feedback: FeedbackState; onClose: () => void }) {
  const related = useAsync((signal) => loadRelated(artist, signal), [artist.name]);
  // Opened from a tile far above: brought into view.
  const ref = useReveal<HTMLDivElement>(artist.name);
  return (
    <div ref={ref} class="discover-related">
      <DiscoverSection
        id="discover-related"
        title={`Artists like ${artist.name}`}
        actions={
          <button type="button" class="link-button" onClick={onClose}>
            Close
          </button>
        }
      >
        {related.error ? <ErrorMessage error={related.error} onRetry={related.reload} /> : null}
        {!related.data && !related.error && <Loading label={`Looking for artists like ${artist.name}…`} />}
        {related.data && related.data.items.length === 0 && <Empty title={`No similar artists known for ${artist.name}.`} />}
        {related.data && related.data.items.length > 0 && <ArtistGrid entries={related.data.items} label={`Artists like ${artist.name}`} feedback={feedback} />}
      </DiscoverSection>
    </div>
  );
}
