import { Empty, Loading, formatDuration, useAsync } from '../components/ui';
import { Artwork } from '../library/Artwork';
import { Link } from '../router';
import { libraryAlbumIds, loadArtist, loadArtistCover, loadPreviews, loadSimilar, type ArtistDetail, type PreviewTrack, type SimilarArtist } from './api';
import { groupReleases } from './logic';
import { DetailSkeleton, MetadataError, ReleaseGrid, Section, TagList } from './parts';
import { withBase } from '../base';

/**
 * An artist from the metadata layer: releases by type, appearances, similar artists and previews.
 * The core page shows first; the full one (with appearances, slower) replaces it when it arrives.
 */
export function MetaArtistScreen({ mbid }: { mbid: string }) {
  const core = useAsync((signal) => loadArtist(mbid, 'core', signal), [mbid]);
  const ready = core.data?.id === mbid;
  // Asked once the core is in, so a cold page costs MusicBrainz one artist lookup, not two at once.
  const full = useAsync((signal) => (ready ? loadArtist(mbid, 'full', signal) : new Promise<never>(() => undefined)), [mbid, ready]);
  const a = full.data?.id === mbid ? full.data : ready ? core.data : undefined;
  if (core.error && !a) return <MetadataError error={core.error} what="artist" onRetry={core.reload} />;
  if (!a) return <DetailSkeleton label="Loading the artist…" round />;
  return <ArtistView key={a.id} artist={a} appearsOnPending={full.data?.id !== mbid && !full.error} />;
}

function ArtistView({ artist: a, appearsOnPending }: { artist: ArtistDetail; appearsOnPending: boolean }) {
  const cover = useAsync((signal) => loadArtistCover(a.id, signal), [a.id]);
  const similar = useAsync((signal) => loadSimilar(a.id, signal), [a.id]);
  const previews = useAsync((signal) => loadPreviews(a.id, signal), [a.id]);
  const owned = [...a['release-groups'], ...a['appears-on-release-groups']].filter((g) => g.inLibrary).map((g) => g.id);
  const libraryIds = useAsync((signal) => libraryAlbumIds(owned, signal).catch(() => new Map<string, string>()), [a.id, owned.join()]);
  const ids = libraryIds.data ?? new Map<string, string>();
  const sections = groupReleases(a['release-groups']);
  const life = [a.lifeSpan.begin?.slice(0, 4), a.lifeSpan.end?.slice(0, 4)].filter(Boolean).join('–');
  const self = { mbid: a.id, name: a.name };
  return (
    <div class="detail meta-artist">
      <header class="detail-head">
        <Artwork url={cover.data ?? null} size={300} label={a.name} class="detail-art round" />
        <div>
          <p class="muted eyebrow">{a.type ? `Artist · ${a.type}` : 'Artist'}</p>
          <h1>{a.name}</h1>
          {a.disambiguation && <p class="muted">{a.disambiguation}</p>}
          <p class="muted">{[countryName(a.country), life].filter(Boolean).join(' · ')}</p>
          {a.inLibrary && (
            <p>
              {a.libraryArtistId ? (
                <Link href={`/library/artists/${a.libraryArtistId}`} class="badge badge-owned">
                  In your library
                </Link>
              ) : (
                <span class="badge badge-owned">In your library</span>
              )}
            </p>
          )}
          <TagList tags={[...new Set([...a.genres, ...a.tags])].slice(0, 12)} label={`Tags of ${a.name}`} />
        </div>
      </header>
      {sections.length === 0 && <Empty title="MusicBrainz lists no releases for this artist." />}
      {sections.map((s) => (
        <Section key={s.key} id={`releases-${s.key.replace(/[^a-z0-9]+/gi, '-')}`} title={s.title}>
          <ReleaseGrid entries={s.entries} label={s.title} artist={self} libraryIds={ids} sectioned />
        </Section>
      ))}
      {a['appears-on-release-groups'].length > 0 && (
        <Section id="meta-appears-on" title="Appears on">
          <ReleaseGrid entries={a['appears-on-release-groups']} label="Appears on" artist={null} libraryIds={ids} showArtist />
        </Section>
      )}
      {appearsOnPending && <Loading label="Looking for releases of other artists this one appears on…" />}
      {previews.data && previews.data.length > 0 && <Previews tracks={previews.data} artist={a.name} />}
      {similar.data && similar.data.length > 0 && <Similar artists={similar.data} />}
    </div>
  );
}

/** "Norway" for "NO"; the code itself where the browser has no name for it. */
function countryName(code: string | null): string | null {
  if (!code) return null;
  try {
    return new Intl.DisplayNames(['en'], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}

function Similar({ artists }: { artists: SimilarArtist[] }) {
  return (
    <Section id="meta-similar" title="Similar artists">
      <ul class="grid" aria-label="Similar artists">
        {artists.map((s, i) => {
          const id = s.id;
          const body = (
            <>
              <Artwork url={s.imageUrl} size={300} label={s.name} class="tile-art round" />
              <span class="tile-title">{s.name}</span>
              <span class="tile-sub muted">{s.inLibrary ? 'In your library' : ''}</span>
            </>
          );
          return (
            <li key={id ?? `${s.name}-${i}`} class="tile">
              {id ? (
                <Link href={`/artist/${id}`} class="tile-link">
                  {body}
                </Link>
              ) : (
                <div class="tile-link">{body}</div>
              )}
            </li>
          );
        })}
      </ul>
    </Section>
  );
}

/** Top tracks with their 30-second previews; one plays at a time. */
function Previews({ tracks, artist }: { tracks: PreviewTrack[]; artist: string }) {
  const playable = tracks.filter((t): t is PreviewTrack & { previewUrl: string } => t.previewUrl !== null);
  if (playable.length === 0) return null;
  return (
    <Section id="meta-previews" title="Previews">
      <ol class="preview-list" aria-label={`Previews of ${artist}`}>
        {playable.slice(0, 10).map((t) => {
          const ms = t.durationMs;
          return (
            <li key={t.id} class="preview">
              <div class="preview-text">
                <span class="track-title">{t.title}</span>
                <span class="muted small">{[t.album?.title, ms ? formatDuration(ms / 1000) : null].filter(Boolean).join(' · ')}</span>
              </div>
              <audio
                controls
                preload="none"
                src={withBase(t.previewUrl)}
                aria-label={`Preview of ${t.title}`}
                onPlay={(e) => document.querySelectorAll<HTMLAudioElement>('.preview-list audio').forEach((el) => el !== e.currentTarget && el.pause())}
              />
            </li>
          );
        })}
      </ol>
    </Section>
  );
}
