import { DOWNLOAD_CLIENTS } from '../domain/downloads/sources/index.js';

/**
 * api.md writes neutral words where product names stand; the real names are canonical on the
 * wire (decisions §1), and every neutral spelling is served by the same handler. This is the one
 * table of aliases: a path segment (or a dash-separated part of one) spelled with a neutral word
 * is rewritten to the real name before routing.
 */
export const neutralNames: Readonly<Record<string, string>> = {
  libmgr: 'lidarr',
  mediaserver: 'plex',
  musicserver: 'navidrome',
  streamsvc: 'spotify',
  scrobbler1: 'lastfm',
  scrobbler2: 'listenbrainz',
  scrobbler3: 'koito',
  pushnotifier: 'gotify',
  // The download sources' programs (p2pclient, indexermgr, usenetA, usenetB, videodl) name theirs in the list of sources.
  ...Object.fromEntries(DOWNLOAD_CLIENTS.map((c) => [c.neutralName, c.key])),
};

const rewriteSegment = (segment: string): string =>
  segment
    .split('-')
    .map((part) => neutralNames[part] ?? part)
    .join('-');

/** The real-name path for a neutral one, or null when nothing needs rewriting. */
export function resolveAlias(pathname: string): string | null {
  if (!pathname.startsWith('/api/')) return null;
  const rewritten = pathname.split('/').map(rewriteSegment).join('/');
  return rewritten === pathname ? null : rewritten;
}
