/** Playlist imports in the web UI: the shapes of api.md §4.11 and the small rules the screens share. */

import type { Answer } from '../wire.js';

export type ImportSource = 'spotify' | 'listenbrainz' | 'lastfm';

export const sources: { id: ImportSource; label: string; linkHint: string }[] = [
  { id: 'spotify', label: 'Spotify', linkHint: 'Connect your Spotify account in Settings → Account first.' },
  { id: 'listenbrainz', label: 'ListenBrainz', linkHint: 'Link your ListenBrainz account in Settings → Account first.' },
  { id: 'lastfm', label: 'Last.fm stations', linkHint: 'Link your Last.fm account in Settings → Account first.' },
];

/** The server's answers (wire.ts): the Spotify connection, a source's playlists, a preview, an import. */
export type SpotifyStatus = Answer<'/api/playlists/import/spotify/status'>;
export type SourcePlaylist = Answer<'/api/playlists/import/spotify/playlists'>['playlists'][number];
export type ImportPreview = Answer<'/api/playlists/import/spotify/preview', 'post'>;
export type PreviewTrack = ImportPreview['owned'][number];
export type ImportResult = Answer<'/api/playlists/import/spotify', 'post'>['imports'][number];

/** What an import creates: a static playlist (the user's own) or a shared one (every user can play it). */
export type ImportTarget = 'static' | 'shared';

export const importTargets: { id: ImportTarget; label: string; hint: string }[] = [
  { id: 'static', label: 'Static playlist', hint: 'yours; also in Subsonic apps' },
  { id: 'shared', label: 'Shared playlist', hint: 'every user can play it; you and administrators change it' },
];

/** The body of `oauth/complete` from the page Spotify (PKCE: `code`) or the broker (tokens) sent the browser to. */
export function callbackCompletion(search: string, hash = ''): { body: Record<string, string | number> } | { error: string } {
  const q = new URLSearchParams(search);
  // Some brokers put the tokens in the fragment.
  for (const [k, v] of new URLSearchParams(hash.replace(/^#/, ''))) if (!q.has(k)) q.set(k, v);
  const state = q.get('state');
  if (q.get('error')) return { error: `Spotify did not grant access (${q.get('error')}).` };
  if (!state) return { error: 'The answer from Spotify has no state: start connecting again.' };
  const code = q.get('code');
  if (code) return { body: { state, code } };
  const accessToken = q.get('access_token') ?? q.get('accessToken');
  if (!accessToken) return { error: 'The answer from Spotify has neither a code nor a token: start connecting again.' };
  const body: Record<string, string | number> = { state, accessToken };
  const refreshToken = q.get('refresh_token') ?? q.get('refreshToken');
  if (refreshToken) body.refreshToken = refreshToken;
  const expiresIn = Number(q.get('expires_in') ?? q.get('expiresIn'));
  if (Number.isFinite(expiresIn) && expiresIn > 0) body.expiresIn = Math.round(expiresIn);
  return { body };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** The preview in one sentence per group, in the order the screen shows them. */
export function previewSummary(p: ImportPreview): { key: 'owned' | 'download' | 'unmatched' | 'unchecked'; text: string }[] {
  const lines: { key: 'owned' | 'download' | 'unmatched' | 'unchecked'; text: string }[] = [
    { key: 'owned', text: `${plural(p.counts.owned, 'track')} already in your library` },
    { key: 'download', text: `${plural(p.counts.download, 'track')} to download${p.canDownload ? '' : ' (once a download source is set up)'}` },
    { key: 'unmatched', text: `${plural(p.counts.unmatched, 'track')} not found on MusicBrainz (left out)` },
  ];
  if (p.counts.unchecked > 0) lines.push({ key: 'unchecked', text: `${plural(p.counts.unchecked, 'track')} not checked yet (matched during the import)` });
  return lines;
}

/** A list in the preview can be cut at `listLimit`: how many more there are. */
export function hiddenCount(p: ImportPreview, key: 'owned' | 'download' | 'unmatched' | 'unchecked'): number {
  return Math.max(0, p.counts[key] - p[key].length);
}

export function playlistLine(p: SourcePlaylist): string {
  const parts = [p.owner ? `by ${p.owner}` : null, p.trackCount === null ? null : plural(p.trackCount, 'track'), p.description];
  return parts.filter(Boolean).join(' · ');
}

export function importOutcome(r: Pick<ImportResult, 'name' | 'counts'>): string {
  const queued = r.counts.queued ?? 0;
  const pending = r.counts.pending ?? 0;
  const owned = r.counts.owned ?? 0;
  const tail = pending > 0 ? `${plural(pending, 'track')} are being matched; missing ones will download and join the playlist.` : queued > 0 ? `${plural(queued, 'track')} will download and join the playlist.` : 'Nothing to download.';
  return `“${r.name}” was created with ${plural(owned, 'track')}. ${tail}`;
}

/** Where the UI shows the playlist an import created. */
export function playlistHref(target: { type: string; id: string }): string {
  return target.type === 'shared' ? `/playlists/shared/${encodeURIComponent(target.id)}` : `/playlists/${encodeURIComponent(target.id)}`;
}
