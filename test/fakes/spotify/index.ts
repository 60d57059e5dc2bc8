import crypto from 'node:crypto';
import { startJsonFake, type FakeReply, type JsonFake, type SeenRequest } from '../http.js';

/**
 * Spotify on 127.0.0.1: the accounts service's client-credentials token (`POST /api/token` with
 * HTTP Basic client id and secret) and the Web API catalogue lookups under `/v1` (artists, albums,
 * tracks) that require its Bearer token. Errors use Spotify's `{error:{status, message}}` body.
 *
 * User accounts (playlist imports): `GET /authorize` approves at once as `authUser` and sends the
 * browser to `redirect_uri` with `code` and `state`; `POST /api/token` trades a code
 * (`authorization_code` with the PKCE `code_verifier` checked against the S256 challenge) and
 * renews (`refresh_token`). The token broker lives under `/broker`: `/broker/auth` trades the code
 * of the broker's client id and sends the browser to `state` with `access_token`, `refresh_token`
 * and `expires_in` in its query; `/broker/renew?refresh_token=` renews. The Web API serves `/v1/me`,
 * `/v1/me/playlists` and `/v1/playlists/{id}[/tracks]` for user tokens, paged by `offset`/`limit`
 * with absolute `next` URLs. `expireUserTokens()` makes every user token answer 401 once (the
 * client renews), and `faults.failNext(n, 429, {'Retry-After': '1'})` injects rate limiting.
 */
export interface SpotifyUserTrack { name: string; artists: string[]; album?: string; durationMs?: number; isrc?: string; type?: 'track' | 'episode'; unavailable?: boolean }
export interface SpotifyUserPlaylist { id: string; name: string; owner: string; tracks: SpotifyUserTrack[] }
export interface SpotifyUser { id: string; displayName: string; playlists: SpotifyUserPlaylist[] }
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
  /** The token broker's root (`<url>/broker`). */
  brokerUrl: string;
  brokerClientId: string;
  /** Client ids registered for PKCE. */
  pkceClientIds: Set<string>;
  users: Map<string, SpotifyUser>;
  /** Who approves on the authorize page. */
  authUser: string;
  /** Lifetime of user access tokens, seconds. */
  userTokenSeconds: number;
  /** Renewals answered (broker and refresh_token grant). */
  renewals: number;
  /** Every user token answers 401 from now on (as if expired); renewed ones work. */
  expireUserTokens(): void;
  /** User access tokens handed out, newest last (to check none leaks). */
  userTokens: string[];
  refreshTokens: string[];
}

const error = (status: number, message: string): FakeReply => ({ status, body: { error: { status, message } } });

export async function startSpotifyFake(options: { clientId?: string; clientSecret?: string } = {}): Promise<SpotifyFake> {
  const valid = new Set<string>();
  const artistJson = (a: SpotifyArtist) => ({ id: a.id, name: a.name, type: 'artist', uri: `spotify:artist:${a.id}`, external_urls: { spotify: `https://open.spotify.com/artist/${a.id}` } });
  const albumJson = (a: SpotifyAlbum) => ({
    id: a.id, name: a.name, type: 'album', album_type: a.albumType ?? 'album', release_date: a.releaseDate ?? '2019-03-01',
    release_date_precision: 'day', uri: `spotify:album:${a.id}`, artists: a.artists.map(artistJson), images: [],
  });

  const codes = new Map<string, { clientId: string; redirectUri: string; challenge: string | null; user: string }>();
  const userTokens = new Map<string, string>();
  const refreshTokens = new Map<string, { user: string; clientId: string }>();
  const issue = (fake: SpotifyFake, user: string, clientId: string, withRefresh: boolean) => {
    const access = `ua-${crypto.randomBytes(12).toString('hex')}`;
    userTokens.set(access, user);
    fake.userTokens.push(access);
    let refresh: string | undefined;
    if (withRefresh) {
      refresh = `ur-${crypto.randomBytes(12).toString('hex')}`;
      refreshTokens.set(refresh, { user, clientId });
      fake.refreshTokens.push(refresh);
    }
    return { access_token: access, token_type: 'Bearer', scope: 'playlist-read-private playlist-read-collaborative', expires_in: fake.userTokenSeconds, ...(refresh && { refresh_token: refresh }) };
  };

  function authorize(fake: SpotifyFake, q: URLSearchParams): FakeReply {
    const clientId = q.get('client_id') ?? '';
    const redirect = q.get('redirect_uri') ?? '';
    if (clientId !== fake.brokerClientId && !fake.pkceClientIds.has(clientId)) return { status: 400, body: 'INVALID_CLIENT: Invalid client', headers: { 'content-type': 'text/plain' } };
    if (q.get('response_type') !== 'code' || !URL.canParse(redirect)) return { status: 400, body: 'Illegal redirect_uri', headers: { 'content-type': 'text/plain' } };
    if (clientId !== fake.brokerClientId && q.get('code_challenge_method') !== 'S256') return { status: 400, body: 'code_challenge required', headers: { 'content-type': 'text/plain' } };
    const code = `code-${crypto.randomBytes(8).toString('hex')}`;
    codes.set(code, { clientId, redirectUri: redirect, challenge: q.get('code_challenge'), user: fake.authUser });
    const back = new URL(redirect);
    back.searchParams.set('code', code);
    if (q.get('state') !== null) back.searchParams.set('state', q.get('state')!);
    return { status: 302, headers: { location: back.href } };
  }

  function userToken(fake: SpotifyFake, form: URLSearchParams): FakeReply {
    const grant = form.get('grant_type');
    if (grant === 'authorization_code') {
      const c = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (!c || c.clientId !== form.get('client_id') || c.redirectUri !== form.get('redirect_uri')) return { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid authorization code' } };
      const verifier = form.get('code_verifier') ?? '';
      if (crypto.createHash('sha256').update(verifier).digest('base64url') !== c.challenge) return { status: 400, body: { error: 'invalid_grant', error_description: 'code_verifier was incorrect' } };
      return { body: issue(fake, c.user, c.clientId, true) };
    }
    if (grant === 'refresh_token') {
      const r = refreshTokens.get(form.get('refresh_token') ?? '');
      if (!r || r.clientId !== form.get('client_id')) return { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid refresh token' } };
      fake.renewals++;
      return { body: issue(fake, r.user, r.clientId, false) };
    }
    return { status: 400, body: { error: 'unsupported_grant_type', error_description: `grant_type ${grant ?? ''} is not supported` } };
  }

  function broker(fake: SpotifyFake, req: SeenRequest): FakeReply {
    if (req.path === '/broker/auth') {
      const c = codes.get(req.query.get('code') ?? '');
      codes.delete(req.query.get('code') ?? '');
      const state = req.query.get('state') ?? '';
      if (!c || c.clientId !== fake.brokerClientId || !URL.canParse(state)) return { status: 400, body: 'Bad request', headers: { 'content-type': 'text/plain' } };
      const t = issue(fake, c.user, c.clientId, true);
      const back = new URL(state);
      back.searchParams.set('access_token', t.access_token);
      back.searchParams.set('refresh_token', t.refresh_token!);
      back.searchParams.set('expires_in', String(t.expires_in));
      return { status: 302, headers: { location: back.href } };
    }
    if (req.path === '/broker/renew') {
      const r = refreshTokens.get(req.query.get('refresh_token') ?? '');
      if (!r || r.clientId !== fake.brokerClientId) return { status: 400, body: { error: 'invalid_grant' } };
      fake.renewals++;
      const t = issue(fake, r.user, r.clientId, false);
      return { body: { access_token: t.access_token, expires_in: t.expires_in } };
    }
    return error(404, 'Not found');
  }

  function userApi(fake: SpotifyFake, req: SeenRequest, user: SpotifyUser): FakeReply {
    const pageOf = <T>(items: T[], max: number, path: string, extra: Record<string, string> = {}) => {
      const limit = Math.min(max, Math.max(1, Number(req.query.get('limit') ?? 20) || 20));
      const offset = Math.max(0, Number(req.query.get('offset') ?? 0) || 0);
      const nextUrl = (o: number) => {
        const u = new URL(`${fake.url}${path}`);
        u.searchParams.set('offset', String(o));
        u.searchParams.set('limit', String(limit));
        for (const [k, v] of Object.entries(extra)) u.searchParams.set(k, v);
        return u.href;
      };
      return { href: nextUrl(offset), items: items.slice(offset, offset + limit), limit, offset, total: items.length, next: offset + limit < items.length ? nextUrl(offset + limit) : null, previous: offset > 0 ? nextUrl(Math.max(0, offset - limit)) : null };
    };
    const playlistJson = (p: SpotifyUserPlaylist) => ({
      id: p.id, name: p.name, type: 'playlist', public: false, collaborative: false, snapshot_id: 'snap', images: [],
      owner: { id: p.owner, display_name: p.owner }, tracks: { href: `${fake.url}/v1/playlists/${p.id}/tracks`, total: p.tracks.length },
    });
    if (req.path === '/v1/me') return { body: { id: user.id, display_name: user.displayName, type: 'user' } };
    if (req.path === '/v1/me/playlists') return { body: { ...pageOf(user.playlists, 50, '/v1/me/playlists'), items: pageOf(user.playlists, 50, '/v1/me/playlists').items.map(playlistJson) } };
    const m = /^\/v1\/playlists\/([^/]+)(\/tracks)?$/.exec(req.path);
    if (!m) return error(404, 'Service not found');
    const playlist = [...fake.users.values()].flatMap((u) => u.playlists).find((p) => p.id === m[1]);
    if (!playlist) return error(404, 'Resource not found');
    if (!m[2]) return { body: playlistJson(playlist) };
    const fields = req.query.get('fields');
    const page = pageOf(playlist.tracks, 100, `/v1/playlists/${playlist.id}/tracks`, fields ? { fields } : {});
    return {
      body: {
        ...page,
        items: page.items.map((t) => ({
          added_at: '2026-01-01T00:00:00Z',
          track: t.unavailable
            ? null
            : { name: t.name, type: t.type ?? 'track', duration_ms: t.durationMs ?? 200_000, external_ids: t.isrc ? { isrc: t.isrc } : {}, artists: t.artists.map((name) => ({ name })), album: { name: t.album ?? t.name } },
        })),
      },
    };
  }

  function route(fake: SpotifyFake, req: SeenRequest, raw: Buffer): FakeReply {
    if (req.path === '/authorize') return authorize(fake, req.query);
    if (req.path.startsWith('/broker/')) return broker(fake, req);
    if (req.path === '/api/token' && req.method === 'POST' && !req.headers.authorization) return userToken(fake, new URLSearchParams(raw.toString('utf8')));
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
    const owner = userTokens.get(bearer);
    if (owner !== undefined) {
      const user = fake.users.get(owner);
      return user ? userApi(fake, req, user) : error(401, 'The access token expired');
    }
    if (req.path === '/v1/me' || req.path.startsWith('/v1/me/') || req.path.startsWith('/v1/playlists/')) return error(401, 'The access token expired');
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

  const fake = (await startJsonFake((req, raw) => route(fake, req, raw))) as SpotifyFake;
  fake.clientId = options.clientId ?? 'test-client';
  fake.clientSecret = options.clientSecret ?? 'test-secret';
  fake.artists = new Map();
  fake.albums = new Map();
  fake.tracks = new Map();
  fake.tokensIssued = 0;
  fake.revokeTokens = () => valid.clear();
  fake.apiUrl = `${fake.url}/v1`;
  fake.brokerUrl = `${fake.url}/broker`;
  fake.brokerClientId = 'broker-client';
  fake.pkceClientIds = new Set();
  fake.users = new Map();
  fake.authUser = '';
  fake.userTokenSeconds = 3600;
  fake.renewals = 0;
  fake.userTokens = [];
  fake.refreshTokens = [];
  fake.expireUserTokens = () => userTokens.clear();
  return fake;
}
