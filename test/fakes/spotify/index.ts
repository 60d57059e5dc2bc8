import { startJsonFake, type FakeReply, type JsonFake, type SeenRequest } from '../http.js';

/**
 * Spotify on 127.0.0.1: the accounts service's client-credentials token (`POST /api/token` with
 * HTTP Basic client id and secret) and the Web API catalogue lookups under `/v1` (artists, albums,
 * tracks) that require its Bearer token. Errors use Spotify's `{error:{status, message}}` body.
 */
export interface SpotifyArtist { id: string; name: string }
export interface SpotifyAlbum { id: string; name: string; artists: SpotifyArtist[]; releaseDate?: string; albumType?: string }
export interface SpotifyTrack { id: string; name: string; artists: SpotifyArtist[]; album: SpotifyAlbum; isrc?: string }

export interface SpotifyFake extends JsonFake {
  clientId: string;
  clientSecret: string;
  artists: Map<string, SpotifyArtist>;
  albums: Map<string, SpotifyAlbum>;
  tracks: Map<string, SpotifyTrack>;
  /** Tokens issued so far. */
  tokensIssued: number;
  /** Revokes every issued token: the next API call answers 401. */
  revokeTokens(): void;
  /** Web API root to configure (`<url>/v1`). */
  apiUrl: string;
}

const error = (status: number, message: string): FakeReply => ({ status, body: { error: { status, message } } });

export async function startSpotifyFake(options: { clientId?: string; clientSecret?: string } = {}): Promise<SpotifyFake> {
  const valid = new Set<string>();
  const artistJson = (a: SpotifyArtist) => ({ id: a.id, name: a.name, type: 'artist', uri: `spotify:artist:${a.id}`, external_urls: { spotify: `https://open.spotify.com/artist/${a.id}` } });
  const albumJson = (a: SpotifyAlbum) => ({
    id: a.id, name: a.name, type: 'album', album_type: a.albumType ?? 'album', release_date: a.releaseDate ?? '2019-03-01',
    release_date_precision: 'day', uri: `spotify:album:${a.id}`, artists: a.artists.map(artistJson), images: [],
  });

  function route(fake: SpotifyFake, req: SeenRequest): FakeReply {
    if (req.path === '/api/token') {
      if (req.method !== 'POST') return { status: 405, body: { error: 'method_not_allowed' } };
      const auth = String(req.headers.authorization ?? '');
      const expected = `Basic ${Buffer.from(`${fake.clientId}:${fake.clientSecret}`).toString('base64')}`;
      if (auth !== expected) return { status: 400, body: { error: 'invalid_client', error_description: 'Invalid client' } };
      if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded'))
        return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'grant_type parameter is missing' } };
      const token = `token-${++fake.tokensIssued}`;
      valid.add(token);
      return { body: { access_token: token, token_type: 'Bearer', expires_in: 3600 } };
    }
    if (!req.path.startsWith('/v1/')) return error(404, 'Service not found');
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    if (!bearer) return error(401, 'No token provided');
    if (!valid.has(bearer)) return error(401, 'The access token expired');
    const m = /^\/v1\/(artists|albums|tracks)\/([^/]+)$/.exec(req.path);
    if (!m) return error(404, 'Service not found');
    const [, kind, id] = m;
    if (!/^[0-9A-Za-z]{22}$/.test(id!)) return error(400, 'Invalid base62 id');
    if (kind === 'artists') {
      const a = fake.artists.get(id!);
      return a ? { body: artistJson(a) } : error(404, 'Resource not found');
    }
    if (kind === 'albums') {
      const a = fake.albums.get(id!);
      return a ? { body: albumJson(a) } : error(404, 'Resource not found');
    }
    const t = fake.tracks.get(id!);
    return t
      ? { body: { id: t.id, name: t.name, type: 'track', uri: `spotify:track:${t.id}`, artists: t.artists.map(artistJson), album: albumJson(t.album), external_ids: t.isrc ? { isrc: t.isrc } : {} } }
      : error(404, 'Resource not found');
  }

  const fake = (await startJsonFake((req) => route(fake, req))) as SpotifyFake;
  fake.clientId = options.clientId ?? 'test-client';
  fake.clientSecret = options.clientSecret ?? 'test-secret';
  fake.artists = new Map();
  fake.albums = new Map();
  fake.tracks = new Map();
  fake.tokensIssued = 0;
  fake.revokeTokens = () => valid.clear();
  fake.apiUrl = `${fake.url}/v1`;
  return fake;
}
