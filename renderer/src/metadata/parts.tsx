import type { ComponentChildren } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { ErrorMessage, useAction, useReveal } from '../components/ui';
import { Artwork } from '../library/Artwork';
import { Link } from '../router';
import { isAdmin, session, type User } from '../session';
import { useStore } from '../store';
import { requestAlbum, yearOf, type AlbumRequest, type AlbumRequestResult, type ReleaseGroupEntry } from './api';
import './metadata.css';

/** What a person reads when the metadata layer answers with an error (decisions §4 codes). */
export function metadataErrorText(err: unknown, what: string): string | null {
  if (!(err instanceof ApiError)) return null;
  if (err.code === 'UPSTREAM_UNAVAILABLE' || err.status === 502) return `MusicBrainz can't be reached right now, and Tonearm has not seen this ${what} before. Try again in a minute.`;
  if (err.code === 'UPSTREAM_RATE_LIMITED' || err.status === 503) return 'MusicBrainz is busy right now. Try again in a few seconds.';
  if (err.status === 404) return `MusicBrainz does not know this ${what}.`;
  if (err.status === 400) return `This is not a MusicBrainz ${what} address.`;
  return null;
}

/** An error with retry, in the metadata layer's words where it has a code for them. */
export function MetadataError({ error, what, onRetry }: { error: unknown; what: string; onRetry?: () => void }) {
  const shown = useMemo(() => {
    const text = metadataErrorText(error, what);
    return text ? new Error(text) : error;
  }, [error, what]);
  return <ErrorMessage error={shown} {...(onRetry && { onRetry })} />;
}

/** Grey blocks in the shape of a detail page while it loads; announced once as a status. */
export function DetailSkeleton({ label, round = false, rows = 6 }: { label: string; round?: boolean; rows?: number }) {
  return (
    <div class="detail meta-skeleton" aria-busy="true">
      <p class="visually-hidden" role="status">
        {label}
      </p>
      <header class="detail-head" aria-hidden="true">
        <div class={`art detail-art skeleton-block ${round ? 'round' : ''}`} />
        <div class="skeleton-lines">
          <div class="skeleton-line short" />
          <div class="skeleton-line title" />
          <div class="skeleton-line" />
        </div>
      </header>
      <div class="skeleton-rows" aria-hidden="true">
        {Array.from({ length: rows }, (_, i) => (
          <div key={i} class="skeleton-line" />
        ))}
      </div>
    </div>
  );
}

export function canRequest(user: User | null): boolean {
  return isAdmin(user) || user?.permissions?.addAlbum === true;
}

/** "In library", linking to the library's album when the library knows which one it is. */
export function InLibrary({ libraryAlbumId, title, label = 'In library' }: { libraryAlbumId: string | undefined; title: string; label?: string }) {
  if (!libraryAlbumId)
    return (
      <span class="badge badge-owned" title="This release is in your library">
        {label}
      </span>
    );
  return (
    <Link href={`/library/albums/${libraryAlbumId}`} class="badge badge-owned" aria-label={`${title} in your library`}>
      {label}
    </Link>
  );
}

function requestedText(result: AlbumRequestResult): string {
  if (result.queued) return 'Requested: the download source is searching for it.';
  if (!result.createdAlbum) return 'Already requested: the download source knows this album.';
  return 'Requested.';
}

/**
 * Requests an album through POST /api/library/albums/request (Lidarr, or Tonearm's own downloads).
 * Hidden without the addAlbum permission; a missing download source is said in words, with the way
 * to set one up for an administrator.
 */
export function RequestButton({ request, compact = false }: { request: AlbumRequest; compact?: boolean }) {
  const user = useStore(session).user;
  const [done, setDone] = useState<AlbumRequestResult | null>(null);
  const action = useAction(async () => setDone(await requestAlbum(request)));
  if (!canRequest(user)) return null;
  if (done?.albumStatus?.recovery?.code === 'download_source_missing')
    return (
      <div class="error request-error" role="alert">
        <span>Requested, but no download source is set up yet: it starts as soon as one is.</span> <SourceHint admin={isAdmin(user)} />
      </div>
    );
  if (done)
    return (
      <span class="request-done" role="status">
        {compact ? 'Requested' : requestedText(done)}
      </span>
    );
  return (
    <div class="request">
      <button type="button" class={compact ? 'small-button' : 'primary'} disabled={action.busy} aria-label={compact ? `Request ${request.albumName}` : undefined} onClick={() => void action.trigger()}>
        {action.busy ? 'Requesting…' : 'Request'}
      </button>
      {action.error ? <RequestError error={action.error} admin={isAdmin(user)} onRetry={() => void action.trigger()} /> : null}
    </div>
  );
}

function RequestError({ error, admin, onRetry }: { error: unknown; admin: boolean; onRetry: () => void }) {
  const ref = useReveal<HTMLDivElement>(error);
  if (error instanceof ApiError && error.code === 'NOT_CONFIGURED')
    return (
      <div class="error request-error" role="alert" ref={ref}>
        <span>No download source is set up, so Tonearm cannot fetch albums yet.</span> <SourceHint admin={admin} />
      </div>
    );
  return <ErrorMessage error={error} onRetry={onRetry} />;
}

/** Where a download source is set up: Settings → Downloads for an administrator, else who to ask. */
function SourceHint({ admin }: { admin: boolean }) {
  return admin ? (
    <span>
      Set up slskd, Usenet, yt-dlp or Lidarr in <Link href="/settings/downloads">Settings</Link>.
    </span>
  ) : (
    <span>Ask an administrator to set up a download source.</span>
  );
}

/** Release groups as tiles: link to the release page, year, "In library" or a Request button. */
export function ReleaseGrid({
  entries,
  label,
  artist,
  libraryIds,
  showArtist = false,
  sectioned = false,
}: {
  entries: ReleaseGroupEntry[];
  label: string;
  artist: { mbid: string; name: string } | null;
  libraryIds: Map<string, string>;
  showArtist?: boolean;
  /** Entries of one groupReleases section: the section's heading already names their first secondary type. */
  sectioned?: boolean;
}) {
  return (
    <ul class="grid release-grid" aria-label={label}>
      {entries.map((g) => (
        <li key={g.id} class="tile">
          <Link href={`/release/${g.id}`} class="tile-link">
            <Artwork url={null} size={300} label={g.title} class="tile-art" />
            <span class="tile-title">{g.title}</span>
            {/* In a section named after its first secondary type, the tile names only the others. */}
            <span class="tile-sub muted">{[showArtist ? g.artistName : null, yearOf(g['first-release-date']), g['secondary-types'].slice(sectioned ? 1 : 0).join(', ')].filter(Boolean).join(' · ')}</span>
          </Link>
          <div class="tile-actions">
            {g.inLibrary ? (
              <InLibrary libraryAlbumId={libraryIds.get(g.id)} title={g.title} />
            ) : artist ? (
              <RequestButton compact request={{ albumMbid: g.id, albumName: g.title, artistMbid: artist.mbid, artistName: artist.name }} />
            ) : null}
          </div>
        </li>
      ))}
    </ul>
  );
}

export function TagList({ tags, label }: { tags: string[]; label: string }) {
  if (tags.length === 0) return null;
  return (
    <ul class="tag-list" aria-label={label}>
      {tags.map((t) => (
        <li key={t}>
          <Link href={`/search?scope=tag&q=${encodeURIComponent(t)}`} class="tag-chip">
            {t}
          </Link>
        </li>
      ))}
    </ul>
  );
}

export function Section({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section aria-labelledby={id} class="meta-section">
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}
