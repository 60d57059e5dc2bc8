import { useState } from 'preact/hooks';
import { Empty, ErrorMessage, Loading, Notice, useAsync } from '../components/ui';
import { Artwork } from '../library/Artwork';
import { Link } from '../router';
import { loadNearbyShows, type Show } from './api';
import { showDate } from './logic';
import { SettingsPointer } from './parts';
import { withoutSettingKeys } from '../messages';
import { dateTime } from '../time';

/** Music events near a place (Ticketmaster): the library's artists first. */
export function ShowsTab() {
  const [typed, setTyped] = useState('');
  const [place, setPlace] = useState('');
  const shows = useAsync((signal) => loadNearbyShows(place, signal), [place]);
  const s = shows.data;
  return (
    <>
      <form
        class="discover-tag-form"
        onSubmit={(e) => {
          e.preventDefault();
          setPlace(typed.trim());
          if (typed.trim() === place) shows.reload();
        }}
      >
        <label for="shows-location">Near</label>
        <input id="shows-location" type="text" value={typed} placeholder={s?.location?.label ?? 'City or postal code'} onInput={(e) => setTyped(e.currentTarget.value)} />
        <button type="submit" class="primary">
          Find shows
        </button>
      </form>
      {shows.error ? <ErrorMessage error={shows.error} onRetry={shows.reload} /> : null}
      {shows.loading && <Loading label="Looking for shows…" />}
      {s && !s.configured && (
        <Empty title="Nearby shows are not set up">
          <p>{s.message ? withoutSettingKeys(s.message) : 'Finding shows needs a Ticketmaster API key.'}</p>
          <SettingsPointer setting="integrations.ticketmaster.apiKey" what="a Ticketmaster API key" />
        </Empty>
      )}
      {s && s.configured && (
        <>
          <p class="muted small">
            {s.location ? `Within ${s.radiusMiles} miles of ${s.location.label}` : 'No place known yet: type a city or postal code.'}
            {s.total > 0 && ` · ${s.total} shows, ${s.libraryShowCount} with artists from your library`}
          </p>
          {s.stale && (
            <Notice tone="warn" reveal={false}>
              Ticketmaster is not answering; these shows are from {s.cachedAt ? dateTime(s.cachedAt) : 'earlier'}.
            </Notice>
          )}
          {s.shows.length === 0 ? (
            <Empty title="No shows found near this place." />
          ) : (
            <ul class="show-list" aria-label="Nearby shows">
              {s.shows.map((show) => (
                <ShowItem key={show.id} show={show} />
              ))}
            </ul>
          )}
        </>
      )}
    </>
  );
}

function ShowItem({ show }: { show: Show }) {
  const venue = show.venue ? [show.venue.name, show.venue.city].filter(Boolean).join(', ') : null;
  return (
    <li class="show">
      <Artwork url={show.imageUrl} size={96} label={show.name} class="preview-art" />
      <div class="show-text">
        <span class="track-title">{show.url ? <a href={show.url} target="_blank" rel="noopener noreferrer">{show.name}</a> : show.name}</span>
        <span class="muted small">
          {[showDate(show.date, show.time), venue, show.distance !== null ? `${Math.round(show.distance)} ${show.units ?? 'mi'}` : null].filter(Boolean).join(' · ')}
        </span>
        {show.artists.length > 0 && (
          <span class="small">
            {show.artists.map((a, i) => (
              <span key={a.name}>
                {i > 0 && ', '}
                {a.libraryArtistId !== null ? <Link href={`/library/artists/${a.libraryArtistId}`}>{a.name}</Link> : a.mbid ? <Link href={`/artist/${a.mbid}`}>{a.name}</Link> : a.name}
              </span>
            ))}
          </span>
        )}
      </div>
      {show.inLibrary && <span class="badge badge-owned">In your library</span>}
    </li>
  );
}
