/**
 * Which streaming-service links /api/search/link understands, and what they point at. Pure: no I/O.
 * A link that parses is one whose service and kind (artist, album, track) are known; everything
 * else is UNSUPPORTED_LINK.
 */
export type LinkKind = 'artist' | 'album' | 'track';
export type LinkSource = 'spotify' | 'deezer' | 'apple' | 'youtube' | 'tidal' | 'bandcamp' | 'musicbrainz';

export interface ParsedLink {
  source: LinkSource;
  kind: LinkKind;
  /** The service's id (a MusicBrainz MBID, a Spotify base62 id, a YouTube video or playlist id…). */
  id: string;
  /** MusicBrainz: the entity the id names (release and release-group are both albums). */
  entity?: 'artist' | 'release-group' | 'release' | 'recording';
  /** Apple Music: the storefront (`us`, `gb`…). */
  country?: string;
  url: URL;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const kinds: Record<string, LinkKind> = { artist: 'artist', album: 'album', track: 'track', song: 'track' };

function spotify(url: URL): ParsedLink | null {
  if (!['open.spotify.com', 'play.spotify.com'].includes(url.hostname)) return null;
  const m = /^\/(?:intl-[A-Za-z]{2}(?:-[A-Za-z]{2})?\/)?(?:embed\/)?(artist|album|track)\/([0-9A-Za-z]{22})\/?$/.exec(url.pathname);
  return m ? { source: 'spotify', kind: kinds[m[1]!]!, id: m[2]!, url } : null;
}

function deezer(url: URL): ParsedLink | null {
  if (!/^(www\.)?deezer\.com$/.test(url.hostname)) return null;
  const m = /^\/(?:[a-z]{2}(?:-[a-z]{2})?\/)?(artist|album|track)\/(\d+)\/?$/.exec(url.pathname);
  return m ? { source: 'deezer', kind: kinds[m[1]!]!, id: m[2]!, url } : null;
}

function apple(url: URL): ParsedLink | null {
  if (!['music.apple.com', 'itunes.apple.com', 'geo.music.apple.com'].includes(url.hostname)) return null;
  const m = /^\/([a-z]{2})\/(artist|album|song)\/(?:[^/]+\/)?(?:id)?(\d+)\/?$/.exec(url.pathname);
  if (!m) return null;
  const trackId = url.searchParams.get('i');
  // An album link with ?i=<track id> points at one of its tracks.
  if (m[2] === 'album' && trackId && /^\d+$/.test(trackId)) return { source: 'apple', kind: 'track', id: trackId, country: m[1]!, url };
  return { source: 'apple', kind: kinds[m[2]!]!, id: m[3]!, country: m[1]!, url };
}

function youtube(url: URL): ParsedLink | null {
  const host = url.hostname;
  const video = /^[0-9A-Za-z_-]{11}$/;
  if (host === 'youtu.be') {
    const id = url.pathname.slice(1);
    return video.test(id) ? { source: 'youtube', kind: 'track', id, url } : null;
  }
  if (!['www.youtube.com', 'youtube.com', 'm.youtube.com', 'music.youtube.com'].includes(host)) return null;
  if (url.pathname === '/watch') {
    const id = url.searchParams.get('v') ?? '';
    return video.test(id) ? { source: 'youtube', kind: 'track', id, url } : null;
  }
  // YouTube Music albums are playlists whose id starts with OLAK5uy_; other playlists are not albums.
  if (url.pathname === '/playlist') {
    const id = url.searchParams.get('list') ?? '';
    return /^OLAK5uy_[0-9A-Za-z_-]+$/.test(id) ? { source: 'youtube', kind: 'album', id, url } : null;
  }
  // Channels (artists) have no keyless metadata (oEmbed does not describe them): unsupported.
  return null;
}

function tidal(url: URL): ParsedLink | null {
  if (!['tidal.com', 'www.tidal.com', 'listen.tidal.com'].includes(url.hostname)) return null;
  const m = /^\/(?:browse\/)?(artist|album|track)\/(\d+)\/?$/.exec(url.pathname);
  return m ? { source: 'tidal', kind: kinds[m[1]!]!, id: m[2]!, url } : null;
}

function bandcamp(url: URL): ParsedLink | null {
  const m = /^([a-z0-9-]+)\.bandcamp\.com$/.exec(url.hostname);
  if (!m || m[1] === 'www' || m[1] === 'daily') return null;
  const path = url.pathname.replace(/\/+$/, '');
  const item = /^\/(album|track)\/([a-z0-9-]+)$/.exec(path);
  if (item) return { source: 'bandcamp', kind: kinds[item[1]!]!, id: `${m[1]}/${item[1]}/${item[2]}`, url };
  if (path === '' || path === '/music') return { source: 'bandcamp', kind: 'artist', id: m[1]!, url };
  return null;
}

function musicbrainz(url: URL): ParsedLink | null {
  if (!['musicbrainz.org', 'www.musicbrainz.org', 'beta.musicbrainz.org'].includes(url.hostname)) return null;
  const m = /^\/(artist|release-group|release|recording)\/([^/]+)\/?$/.exec(url.pathname);
  if (!m || !UUID.test(m[2]!)) return null;
  const entity = m[1] as NonNullable<ParsedLink['entity']>;
  const kind: LinkKind = entity === 'artist' ? 'artist' : entity === 'recording' ? 'track' : 'album';
  return { source: 'musicbrainz', kind, id: m[2]!.toLowerCase(), entity, url };
}

/** `spotify:album:<id>` URIs, as the desktop app copies them. */
function spotifyUri(raw: string): ParsedLink | null {
  const m = /^spotify:(artist|album|track):([0-9A-Za-z]{22})$/.exec(raw);
  return m ? { source: 'spotify', kind: kinds[m[1]!]!, id: m[2]!, url: new URL(`https://open.spotify.com/${m[1]}/${m[2]}`) } : null;
}

export function parseLink(raw: string): ParsedLink | null {
  const text = raw.trim();
  const uri = spotifyUri(text);
  if (uri) return uri;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  url.hostname = url.hostname.toLowerCase();
  for (const parse of [spotify, deezer, apple, youtube, tidal, bandcamp, musicbrainz]) {
    const parsed = parse(url);
    if (parsed) return parsed;
  }
  return null;
}
