import { useState } from 'preact/hooks';
import { ApiError } from '../api';
import { Empty, ErrorMessage, Loading, useAsync } from '../components/ui';
import { navigate, useLocation } from '../router';
import { loadByTag, loadTags, PAGE } from './api';
import { pageRange } from './logic';
import { ArtistGrid, DiscoverSection, DiscoverTags, SettingsPointer, useFeedback } from './parts';

const tagHref = (tag: string, offset = 0) => `/discover/tags?tag=${encodeURIComponent(tag)}${offset > 0 ? `&offset=${offset}` : ''}`;

/** Tag and genre browsing: the user's tags, the genre sections, any tag (with Last.fm), a tag's artists paged. */
export function TagsTab() {
  const loc = useLocation();
  const tag = loc.query.get('tag')?.trim() ?? '';
  const offset = Math.max(0, Number(loc.query.get('offset')) || 0);
  const tags = useAsync((signal) => loadTags(signal), []);
  const [typed, setTyped] = useState(tag);
  const t = tags.data;
  return (
    <>
      {tags.error ? <ErrorMessage error={tags.error} onRetry={tags.reload} /> : null}
      {!t && !tags.error && <Loading label="Loading tags…" />}
      {t && (
        <>
          {t.arbitraryTagSearch && (
            <form
              class="discover-tag-form"
              role="search"
              onSubmit={(e) => {
                e.preventDefault();
                if (typed.trim()) navigate(tagHref(typed.trim()));
              }}
            >
              <label for="discover-tag">Any tag or genre</label>
              <input id="discover-tag" type="search" value={typed} placeholder="shoegaze, krautrock…" onInput={(e) => setTyped(e.currentTarget.value)} />
              <button type="submit" class="primary">
                Show artists
              </button>
            </form>
          )}
          <DiscoverSection id="discover-your-tags" title="Your tags">
            {t.tags.length > 0 ? <DiscoverTags tags={t.tags.map((x) => x.name)} label="Your tags" /> : <p class="muted">Your tags appear after your recommendations are first updated.</p>}
          </DiscoverSection>
          {t.genres.length > 0 && (
            <DiscoverSection id="discover-genres" title="Genres">
              <DiscoverTags tags={t.genres} label="Genres" />
            </DiscoverSection>
          )}
        </>
      )}
      {tag && <TagArtists key={`${tag}-${offset}`} tag={tag} offset={offset} />}
    </>
  );
}

function TagArtists({ tag, offset }: { tag: string; offset: number }) {
  const page = useAsync((signal) => loadByTag(tag, offset, signal), [tag, offset]);
  const feedback = useFeedback();
  const p = page.data;
  const notConfigured = page.error instanceof ApiError && page.error.code === 'NOT_CONFIGURED';
  return (
    <DiscoverSection id="discover-tag-artists" title={`Artists tagged ${tag}`} actions={p && p.total > 0 ? <span class="muted small">{pageRange(offset, p.items.length, p.total)}</span> : undefined}>
      {notConfigured ? (
        <Empty title="Tag search needs Last.fm">
          <SettingsPointer setting="integrations.lastfm.apiKey" what="a Last.fm API key" />
        </Empty>
      ) : page.error ? (
        <ErrorMessage error={page.error} onRetry={page.reload} />
      ) : null}
      {!p && !page.error && <Loading label={`Finding ${tag} artists…`} />}
      {p && p.items.length === 0 && <Empty title={`No artists found for “${tag}”.`} />}
      {p && p.items.length > 0 && <ArtistGrid entries={p.items} label={`Artists tagged ${tag}`} feedback={feedback} onLess={page.reload} />}
      {p && (offset > 0 || offset + p.items.length < p.total) && (
        <div class="pager">
          <button type="button" disabled={offset === 0} onClick={() => navigate(tagHref(tag, Math.max(0, offset - PAGE)))}>
            Previous
          </button>
          <button type="button" disabled={offset + p.items.length >= p.total} onClick={() => navigate(tagHref(tag, offset + PAGE))}>
            Next
          </button>
        </div>
      )}
    </DiscoverSection>
  );
}
