import { z } from 'zod';
import { IntegrationError } from '../errors.js';
import { PlexTransport, type PlexProduct } from './transport.js';
import { asList, optionalText, plexFlag, plexKey, plexNumber } from './values.js';

/**
 * plex.tv, the account service: PIN sign-in (create, poll), the signed-in account, the servers it
 * can reach (resources with their connections and access tokens) and Plex Home (home users and
 * switching to one of them to get that user's own token).
 */
export interface PlexTvOptions {
  /** `https://plex.tv` (TONEARM_PLEXTV_URL). */
  baseUrl: string;
  product: PlexProduct;
  /** The account token, when signed in. */
  token?: string | null;
  timeoutMs?: number;
}

const pinSchema = z.object({
  id: plexKey,
  code: z.string(),
  authToken: z.string().nullish(),
  expiresIn: plexNumber.nullish(),
  expiresAt: z.string().nullish(),
  clientIdentifier: z.string().nullish(),
});

export interface PlexPin {
  id: string;
  code: string;
  /** Set once the user approved the PIN on plex.tv. */
  authToken: string | null;
  /** Seconds left when it was read. */
  expiresIn: number | null;
  expiresAt: string | null;
}

const accountSchema = z.object({
  id: plexKey,
  uuid: optionalText,
  username: optionalText,
  title: optionalText,
  email: optionalText,
  thumb: optionalText,
});
export type PlexAccount = { id: string; uuid: string | null; username: string | null; title: string | null; email: string | null; thumb: string | null };

const connectionSchema = z.object({
  protocol: optionalText,
  address: optionalText,
  port: plexNumber.nullish(),
  uri: z.string(),
  local: plexFlag.default(false),
  relay: plexFlag.default(false),
  IPv6: plexFlag.default(false),
});
export type PlexConnection = { protocol: string | null; address: string | null; port: number | null; uri: string; local: boolean; relay: boolean; IPv6: boolean };

const resourceSchema = z.object({
  name: z.string(),
  product: optionalText,
  productVersion: optionalText,
  platform: optionalText,
  clientIdentifier: plexKey,
  provides: z.string().default(''),
  owned: plexFlag.default(false),
  home: plexFlag.default(false),
  accessToken: z.string().nullish(),
  presence: plexFlag.default(false),
  httpsRequired: plexFlag.default(false),
  publicAddress: optionalText,
});

export interface PlexResource {
  name: string;
  product: string | null;
  productVersion: string | null;
  platform: string | null;
  clientIdentifier: string;
  provides: string[];
  owned: boolean;
  home: boolean;
  /** The token for this server (for a shared server it differs from the account token). */
  accessToken: string | null;
  presence: boolean;
  httpsRequired: boolean;
  publicAddress: string | null;
  connections: PlexConnection[];
}

const homeUserSchema = z.object({
  id: plexKey,
  uuid: optionalText,
  title: optionalText,
  username: optionalText,
  email: optionalText,
  friendlyName: optionalText,
  thumb: optionalText,
  restricted: plexFlag.default(false),
  admin: plexFlag.default(false),
  guest: plexFlag.default(false),
  protected: plexFlag.default(false),
  hasPassword: plexFlag.default(false),
});
export type PlexHomeUser = z.infer<typeof homeUserSchema>;

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new IntegrationError('plextv', 'bad_response', `plex.tv answered ${what} with an unexpected shape (${issue.path.join('.')}: ${issue.message})`);
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

export class PlexTvClient {
  private readonly http: PlexTransport;

  constructor(readonly options: PlexTvOptions) {
    this.http = new PlexTransport({ service: 'plextv', label: 'plex.tv', baseUrl: options.baseUrl, product: options.product, token: options.token ?? null, ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }) });
  }

  /** A strong PIN (a long code the user approves through app.plex.tv/auth). */
  async createPin(): Promise<PlexPin> {
    const body = await this.http.call({ method: 'POST', path: '/api/v2/pins', query: { strong: 'true' }, token: null });
    return toPin(parse(pinSchema, unwrap(body, 'pin'), 'a new PIN'));
  }

  /** The PIN's state; `authToken` is null until approved. A PIN past its expiry is gone (not_found). */
  async checkPin(id: string, code: string): Promise<PlexPin> {
    const body = await this.http.call({ path: `/api/v2/pins/${encodeURIComponent(id)}`, query: { code }, token: null });
    return toPin(parse(pinSchema, unwrap(body, 'pin'), 'a PIN check'));
  }

  /** The account of a token (the client's own unless another is given); unauthorized for a bad token. */
  async account(token?: string): Promise<PlexAccount> {
    const body = await this.http.call({ path: '/api/v2/user', ...(token !== undefined && { token }) });
    return parse(accountSchema, unwrap(body, 'user'), 'the account') as PlexAccount;
  }

  /** Every server the account can reach, with its connections (those that provide "server"). */
  async servers(): Promise<PlexResource[]> {
    const body = await this.http.call({ path: '/api/v2/resources', query: { includeHttps: 1, includeRelay: 1 } });
    return resourceList(body)
      .map((raw) => toResource(raw))
      .filter((r) => r.provides.includes('server'));
  }

  /** The Plex Home of the account: its users (managed users are `restricted`, some need a PIN to switch). */
  async homeUsers(): Promise<PlexHomeUser[]> {
    const body = await this.http.call({ path: '/api/v2/home/users' });
    const o = obj(body);
    const users = o.users ?? obj(o.home).users ?? obj(o.MediaContainer).User ?? obj(o.users).user;
    const list = asList(Array.isArray(users) ? users : obj(users).user ?? users);
    return list.map((u, i) => parse(homeUserSchema, u, `home user ${i + 1}`));
  }

  /**
   * Switches to a home user and returns that user's own token (managed users have no password of
   * their own). Falls back to the legacy route, which answers XML, where the v2 one is missing.
   */
  async switchHomeUser(id: string, pin?: string): Promise<{ token: string; account: Partial<PlexAccount> }> {
    const query = pin ? { pin } : undefined;
    let body: unknown;
    try {
      body = await this.http.call({ method: 'POST', path: `/api/v2/home/users/${encodeURIComponent(id)}/switch`, ...(query && { query }) });
    } catch (err) {
      if (!(err instanceof IntegrationError && err.kind === 'not_found')) throw err;
      body = await this.http.call({ method: 'POST', path: `/api/home/users/${encodeURIComponent(id)}/switch`, ...(query && { query }) });
    }
    const user = obj(unwrap(body, 'user'));
    const token = user.authToken ?? user.authenticationToken;
    if (typeof token !== 'string' || token === '') throw new IntegrationError('plextv', 'bad_response', 'plex.tv switched to the home user but sent no token');
    return {
      token,
      account: {
        id: user.id === undefined ? '' : String(user.id),
        uuid: typeof user.uuid === 'string' ? user.uuid : null,
        username: typeof user.username === 'string' && user.username ? user.username : null,
        title: typeof user.title === 'string' ? user.title : null,
      },
    };
  }
}

/** The page a user approves a PIN on (`https://app.plex.tv/auth#?clientID=…&code=…`). */
export function plexAuthUrl(appBaseUrl: string, clientIdentifier: string, code: string, product: string, forwardUrl?: string): string {
  const params = new URLSearchParams({ clientID: clientIdentifier, code, 'context[device][product]': product });
  if (forwardUrl) params.set('forwardUrl', forwardUrl);
  return `${appBaseUrl.replace(/\/+$/, '')}/auth#?${params.toString()}`;
}

/** plex.tv's XML wraps a single object in its element (`<pin …>`, `<user …>`); JSON does not. */
function unwrap(body: unknown, element: string): unknown {
  const o = obj(body);
  return element in o && typeof o[element] === 'object' ? o[element] : body;
}

function toPin(p: z.infer<typeof pinSchema>): PlexPin {
  return { id: p.id, code: p.code, authToken: p.authToken ? p.authToken : null, expiresIn: p.expiresIn ?? null, expiresAt: p.expiresAt ?? null };
}

/** Resources as JSON (an array), v2 XML (`<resources><resource><connections><connection>`) or legacy XML (`MediaContainer.Device[].Connection`). */
function resourceList(body: unknown): Record<string, unknown>[] {
  if (Array.isArray(body)) return body.map(obj);
  const o = obj(body);
  const list = o.resources !== undefined ? obj(o.resources).resource : obj(o.MediaContainer).Device;
  return asList(list).map(obj);
}

function toResource(raw: Record<string, unknown>): PlexResource {
  const r = parse(resourceSchema, raw, `server ${String(raw.name ?? '')}`);
  const conns = raw.connections !== undefined ? (Array.isArray(raw.connections) ? raw.connections : obj(raw.connections).connection) : raw.Connection;
  return {
    name: r.name,
    product: r.product,
    productVersion: r.productVersion,
    platform: r.platform,
    clientIdentifier: r.clientIdentifier,
    provides: r.provides.split(',').map((s) => s.trim()).filter(Boolean),
    owned: r.owned,
    home: r.home,
    accessToken: r.accessToken ?? null,
    presence: r.presence,
    httpsRequired: r.httpsRequired,
    publicAddress: r.publicAddress,
    connections: asList(conns).map((c, i) => {
      const parsed = parse(connectionSchema, c, `connection ${i + 1} of ${r.name}`);
      return { ...parsed, port: parsed.port ?? null } as PlexConnection;
    }),
  };
}
