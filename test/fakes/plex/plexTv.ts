import crypto from 'node:crypto';
import { startJsonFake, type FakeReply, type JsonFake, type SeenRequest } from '../http.js';
import { xmlDocument } from './xml.js';

/**
 * plex.tv on 127.0.0.1: `POST /api/v2/pins?strong=true` (201), `GET /api/v2/pins/:id?code=` (the
 * same PIN object, `authToken` null until the test calls `approve`, 404 once expired or for
 * another client identifier), `GET /api/v2/user`, `GET /api/v2/resources` (a JSON array),
 * `GET /api/v2/home/users`, `POST /api/v2/home/users/:id/switch[?pin=]` and the legacy
 * `POST /api/home/users/:id/switch` (XML `<user authenticationToken>`). Tokens travel in
 * `X-Plex-Token`; a missing or unknown one is 401 with plex.tv's JSON error body. Every request
 * must name the client (`X-Plex-Client-Identifier`, `X-Plex-Product`) or it is 400.
 *
 * Resources are per account: a server with an `ownerToken` is listed (owned, with its own
 * `accessToken`) to that account only; a server shared with another account (`share`) is listed to
 * it with that account's own access token, as plex.tv does for friends and Plex Home users. A
 * server without an `ownerToken` is listed to every account. Switching to a home user makes its
 * token a plex.tv token of that user (it can list its own resources).
 */
export interface FakePlexAccount {
  id: number;
  uuid: string;
  username: string;
  title: string;
  email: string;
}

export interface FakePlexServerResource {
  name: string;
  clientIdentifier: string;
  accessToken: string;
  owned: boolean;
  /** The plex.tv token of the account that owns it; unset: listed to every account. */
  ownerToken?: string;
  uri: string;
  local?: boolean;
  /** Other entries plex.tv lists (players, clients) are given with `provides: "client,player"`. */
  provides?: string;
}

export interface FakeHomeUser {
  id: number;
  uuid: string;
  title: string;
  username: string;
  restricted: boolean;
  admin: boolean;
  /** A 4-digit PIN needed to switch to this user, or null. */
  pin: string | null;
  /** The token plex.tv hands out when switching to this user. */
  token: string;
}

interface FakePin {
  id: number;
  code: string;
  clientIdentifier: string;
  createdAt: number;
  expiresAt: number;
  authToken: string | null;
}

export interface PlexTvFake extends JsonFake {
  /** Token → account (the admin and any linked users). */
  accounts: Map<string, FakePlexAccount>;
  /** What `/api/v2/resources` lists for any valid token. */
  servers: FakePlexServerResource[];
  homeUsers: FakeHomeUser[];
  pins: Map<number, FakePin>;
  /** Seconds a new PIN lives (plex.tv: 1800). */
  pinLifetimeSeconds: number;
  /** Answer the v2 switch route with 404 (older plex.tv), so only the legacy XML route works. */
  legacySwitchOnly: boolean;
  /** The user approves the PIN on app.plex.tv: the next check carries this account's token. */
  approve(pinId: number | string, token: string): void;
  /** Moves the PIN past its expiry. */
  expire(pinId: number | string): void;
  /** plex.tv token → (server clientIdentifier → that account's own access token for the server). */
  shares: Map<string, Map<string, string>>;
  /** Shares a server with an account (a friend, or a Plex Home user's switched token): resources list it with `accessToken`. */
  share(plexTvToken: string, clientIdentifier: string, accessToken: string): void;
  /** Adds an account and returns its token. */
  addAccount(account: Partial<FakePlexAccount> & { username: string }, token?: string): string;
}

const unauthorized: FakeReply = { status: 401, body: { errors: [{ code: 1001, message: 'User could not be authenticated', status: 401 }] } };

export async function startPlexTvFake(): Promise<PlexTvFake> {
  let nextPin = 7000;
  const pinBody = (p: FakePin) => ({
    id: p.id,
    code: p.code,
    product: 'Tonearm',
    trusted: false,
    qr: `https://plex.tv/api/v2/pins/qr/${p.code}`,
    clientIdentifier: p.clientIdentifier,
    location: { code: 'NL', european_union_member: true, continent_code: 'EU', country: 'Netherlands' },
    expiresIn: Math.max(0, Math.round((p.expiresAt - Date.now()) / 1000)),
    createdAt: new Date(p.createdAt).toISOString(),
    expiresAt: new Date(p.expiresAt).toISOString(),
    authToken: p.authToken,
    newRegistration: null,
  });

  const handler = (req: SeenRequest): FakeReply => {
    const client = req.headers['x-plex-client-identifier'];
    if (typeof client !== 'string' || !client || !req.headers['x-plex-product'])
      return { status: 400, body: { errors: [{ code: 1000, message: 'X-Plex-Client-Identifier is missing', status: 400 }] } };
    const token = req.headers['x-plex-token'];
    const account = typeof token === 'string' ? fake.accounts.get(token) : undefined;

    if (req.path === '/api/v2/pins' && req.method === 'POST') {
      const p: FakePin = { id: nextPin++, code: crypto.randomBytes(12).toString('hex'), clientIdentifier: client, createdAt: Date.now(), expiresAt: Date.now() + fake.pinLifetimeSeconds * 1000, authToken: null };
      fake.pins.set(p.id, p);
      return { status: 201, body: pinBody(p) };
    }
    const pinMatch = /^\/api\/v2\/pins\/(\d+)$/.exec(req.path);
    if (pinMatch && req.method === 'GET') {
      const p = fake.pins.get(Number(pinMatch[1]));
      if (!p || p.clientIdentifier !== client || p.expiresAt <= Date.now() || (req.query.get('code') ?? p.code) !== p.code)
        return { status: 404, body: { errors: [{ code: 1020, message: 'Code not found or expired', status: 404 }] } };
      return { body: pinBody(p) };
    }
    if (!account) return unauthorized;
    if (req.path === '/api/v2/user' && req.method === 'GET') return { body: { ...account, thumb: `https://plex.tv/users/${account.uuid}/avatar`, authToken: token } };
    if (req.path === '/api/v2/resources' && req.method === 'GET') {
      const shared = fake.shares.get(token as string);
      const visible = fake.servers.flatMap((s) => {
        if (s.ownerToken === undefined || s.ownerToken === token) return [s];
        const accessToken = shared?.get(s.clientIdentifier);
        return accessToken ? [{ ...s, owned: false, accessToken }] : [];
      });
      return {
        body: visible.map((s) => {
          const url = new URL(s.uri);
          return {
            name: s.name,
            product: 'Plex Media Server',
            productVersion: '1.41.3.9314',
            platform: 'Linux',
            platformVersion: '6.1',
            device: 'PC',
            clientIdentifier: s.clientIdentifier,
            createdAt: '2024-01-01T00:00:00Z',
            lastSeenAt: '2026-11-24T00:00:00Z',
            provides: s.provides ?? 'server',
            ownerId: s.owned ? null : 99,
            sourceTitle: s.owned ? null : 'friend',
            publicAddress: '203.0.113.9',
            accessToken: s.accessToken,
            owned: s.owned,
            home: false,
            synced: false,
            relay: true,
            presence: true,
            httpsRequired: false,
            publicAddressMatches: true,
            dnsRebindingProtection: false,
            natLoopbackSupported: false,
            connections: [
              { protocol: url.protocol.replace(':', ''), address: url.hostname, port: Number(url.port), uri: s.uri, local: s.local ?? true, relay: false, IPv6: false },
              { protocol: 'https', address: '203-0-113-9.example.plex.direct', port: 32400, uri: 'https://203-0-113-9.example.plex.direct:32400', local: false, relay: true, IPv6: false },
            ],
          };
        }),
      };
    }
    if (req.path === '/api/v2/home/users' && req.method === 'GET') {
      return {
        body: {
          id: 1,
          name: `${account.title}'s home`,
          guestUserID: 2,
          guestUserUUID: 'guest',
          guestEnabled: false,
          subscription: true,
          users: fake.homeUsers.map((u) => ({
            id: u.id,
            uuid: u.uuid,
            title: u.title,
            username: u.username,
            email: u.restricted ? '' : `${u.username}@example.org`,
            friendlyName: '',
            thumb: `https://plex.tv/users/${u.uuid}/avatar`,
            hasPassword: !u.restricted,
            restricted: u.restricted,
            updatedAt: 1700000000,
            restrictionProfile: u.restricted ? 'older_kid' : null,
            admin: u.admin,
            guest: false,
            protected: u.pin !== null,
          })),
        },
      };
    }
    const switchMatch = /^\/api(\/v2)?\/home\/users\/(\d+)\/switch$/.exec(req.path);
    if (switchMatch && req.method === 'POST') {
      const legacy = !switchMatch[1];
      if (!legacy && fake.legacySwitchOnly) return { status: 404, body: { errors: [{ code: 1002, message: 'Not found', status: 404 }] } };
      const user = fake.homeUsers.find((u) => u.id === Number(switchMatch[2]));
      if (!user) return { status: 404, body: { errors: [{ code: 1002, message: 'User not found', status: 404 }] } };
      if (user.pin !== null && req.query.get('pin') !== user.pin) return { status: 403, body: { errors: [{ code: 1041, message: 'Invalid PIN', status: 403 }] } };
      // The switched token is that home user's own plex.tv token.
      if (!fake.accounts.has(user.token)) fake.accounts.set(user.token, { id: user.id, uuid: user.uuid, username: user.username, title: user.title, email: `${user.username || user.uuid}@example.org` });
      if (legacy) {
        return {
          headers: { 'content-type': 'application/xml' },
          body: xmlDocument('user', { id: user.id, uuid: user.uuid, title: user.title, username: user.username, restricted: user.restricted, authenticationToken: user.token, authToken: user.token }),
        };
      }
      return { status: 201, body: { id: user.id, uuid: user.uuid, title: user.title, username: user.username, restricted: user.restricted, authToken: user.token } };
    }
    return { status: 404, body: { errors: [{ code: 1002, message: 'Not found', status: 404 }] } };
  };

  const fake = (await startJsonFake(handler)) as PlexTvFake;
  fake.accounts = new Map();
  fake.servers = [];
  fake.homeUsers = [];
  fake.pins = new Map();
  fake.pinLifetimeSeconds = 1800;
  fake.shares = new Map();
  fake.share = (plexTvToken, clientIdentifier, accessToken) => {
    let m = fake.shares.get(plexTvToken);
    if (!m) fake.shares.set(plexTvToken, (m = new Map()));
    m.set(clientIdentifier, accessToken);
  };
  fake.legacySwitchOnly = false;
  fake.approve = (pinId, token) => {
    const p = fake.pins.get(Number(pinId));
    if (!p) throw new Error(`no PIN ${pinId}`);
    if (!fake.accounts.has(token)) throw new Error('approve with a token of a known account');
    p.authToken = token;
  };
  fake.expire = (pinId) => {
    const p = fake.pins.get(Number(pinId));
    if (!p) throw new Error(`no PIN ${pinId}`);
    p.expiresAt = Date.now() - 1;
  };
  let nextAccount = 100;
  fake.addAccount = (a, token = `plex-token-${crypto.randomBytes(10).toString('hex')}`) => {
    const id = a.id ?? nextAccount++;
    fake.accounts.set(token, { id, uuid: a.uuid ?? crypto.randomUUID().replace(/-/g, '').slice(0, 16), username: a.username, title: a.title ?? a.username, email: a.email ?? `${a.username}@example.org` });
    return token;
  };
  return fake;
}
