import { Fragment } from 'preact';
import { Empty, formatDuration, useAsync } from '../components/ui';
import { Artwork } from '../library/Artwork';
import { count } from '../library/parts';
import { Link } from '../router';
import { libraryAlbumIds, loadReleaseGroup, loadReleaseTracks, yearOf, type ReleaseGroupDetail, type ReleaseTrack } from './api';
import { typeLine } from './logic';
import { DetailSkeleton, InLibrary, MetadataError, RequestButton, TagList } from './parts';

/** A release group from the metadata layer: cover, credits, date, type, track list, request. */
export function MetaReleaseScreen({ mbid }: { mbid: string }) {
  const group = useAsync((signal) => loadReleaseGroup(mbid, signal), [mbid]);
  const g = group.data?.id === mbid ? group.data : undefined;
  if (group.error && !g) return <MetadataError error={group.error} what="release" onRetry={group.reload} />;
  if (!g) return <DetailSkeleton label="Loading the release…" />;
  return <ReleaseView key={g.id} group={g} />;
}

function Credits({ group }: { group: ReleaseGroupDetail }) {
  return (
    <>
      {group['artist-credit'].map((c, i) => (
        <Fragment key={`${c.artist.id}-${i}`}>
          <Link href={`/artist/${c.artist.id}`}>{c.name || c.artist.name}</Link>
          {c.joinphrase}
        </Fragment>
      ))}
    </>
  );
}

function ReleaseView({ group: g }: { group: ReleaseGroupDetail }) {
  const tracks = useAsync((signal) => loadReleaseTracks(g.id, signal), [g.id]);
  const library = useAsync((signal) => (g.inLibrary ? libraryAlbumIds([g.id], signal).catch(() => new Map<string, string>()) : Promise.resolve(new Map<string, string>())), [g.id, g.inLibrary]);
  const list = tracks.data?.tracks ?? [];
  const minutes = Math.round(list.reduce((sum, t) => sum + (t.durationMs ?? 0), 0) / 60000);
  const lead = g['artist-credit'][0];
  const artistName = g['artist-credit'].map((c) => (c.name || c.artist.name) + c.joinphrase).join('');
  const date = g['first-release-date'];
  return (
    <div class="detail meta-release">
      <header class="detail-head">
        <Artwork url={g.coverUrl} size={300} label={g.title} class="detail-art" />
        <div>
          <p class="muted eyebrow">{typeLine(g['primary-type'] || 'Release', g['secondary-types'])}</p>
          <h1>{g.title}</h1>
          <p>
            <Credits group={g} />
            {date ? (
              <span class="muted">
                {' · '}
                <time dateTime={date}>{date.length > 4 ? date : yearOf(date)}</time>
              </span>
            ) : null}
          </p>
          {list.length > 0 && (
            <p class="muted">
              {count(list.length, 'track')}
              {minutes > 0 ? ` · ${minutes} min` : ''}
            </p>
          )}
          <TagList tags={[...new Set([...g.genres, ...g.tags])].slice(0, 10)} label={`Tags of ${g.title}`} />
          <div class="detail-actions">
            {g.inLibrary ? (
              <InLibrary libraryAlbumId={library.data?.get(g.id)} title={g.title} />
            ) : lead ? (
              <RequestButton request={{ albumMbid: g.id, albumName: g.title, artistMbid: lead.artist.id, artistName: lead.name || lead.artist.name }} />
            ) : null}
          </div>
        </div>
      </header>
      {g.overview && <p class="meta-overview">{g.overview}</p>}
      {tracks.error ? (
        <MetadataError error={tracks.error} what="release" onRetry={tracks.reload} />
      ) : tracks.loading && !tracks.data ? (
        <DetailRows />
      ) : list.length === 0 ? (
        <Empty title="MusicBrainz lists no tracks for this release." />
      ) : (
        <ReleaseTracks tracks={list} title={g.title} artistName={artistName} />
      )}
    </div>
  );
}

function DetailRows() {
  return (
    <div class="skeleton-rows" aria-busy="true">
      <p class="visually-hidden" role="status">
        Loading the tracks…
      </p>
      {Array.from({ length: 6 }, (_, i) => (
        <div key={i} class="skeleton-line" aria-hidden="true" />
      ))}
    </div>
  );
}

/** The track list of the release's representative edition, by disc, with in-library marks. */
function ReleaseTracks({ tracks, title, artistName }: { tracks: ReleaseTrack[]; title: string; artistName: string }) {
  const discs = [...new Set(tracks.map((t) => t.discNumber))];
  return (
    <table class="tracks meta-tracks">
      <caption class="visually-hidden">{`Tracks of ${title}`}</caption>
      <thead>
        <tr>
          <th scope="col" class="col-num meta-num">
            #
          </th>
          <th scope="col">Title</th>
          <th scope="col" class="col-artist">
            Artist
          </th>
          <th scope="col" class="col-time">
            Time
          </th>
          <th scope="col" class="col-owned">
            <span class="visually-hidden">In library</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {tracks.map((t, i) => (
          <Fragment key={t.id}>
            {discs.length > 1 && (i === 0 || tracks[i - 1]!.discNumber !== t.discNumber) && (
              <tr class="disc-row">
                <th scope="rowgroup" colSpan={5}>
                  Disc {t.discNumber}
                </th>
              </tr>
            )}
            <tr>
              <td class="col-num meta-num muted">{t.number || t.trackNumber}</td>
              <td class="col-title">
                <span class="track-title">{t.title}</span>
                {t.artistName !== artistName && <span class="track-sub muted">{t.artistName}</span>}
              </td>
              <td class="col-artist">{t.artistName}</td>
              <td class="col-time muted">{t.durationMs === null ? '' : formatDuration(t.durationMs / 1000)}</td>
              <td class="col-owned">{t.inLibrary && <span class="badge badge-owned">In library</span>}</td>
            </tr>
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}
