import { createHash, randomBytes } from 'node:crypto';
import { IntegrationError, type IntegrationErrorKind } from '../errors.js';
import { exchange, joinUrl, looksLikeHtml, parseJson, queryString, redactUrl } from '../http.js';

/**
 * A small Subsonic client for Navidrome: token authentication (`t = md5(password + s)` with a fresh
 * random salt per request) and the Subsonic envelope mapped to IntegrationErrors.
 */
const SERVICE = 'navidrome';
const API_VERSION = '1.16.1';

export interface NavidromeClientOptions {
  /** Navidrome's address, including any base path, e.g. `http://nas:4533`; `/rest/<method>` is appended. */
  baseUrl: string;
  username: string;
  password: string;
  /** Per-request timeout; default 15 s. */
  timeoutMs?: number;
  /** The `c` parameter Subsonic servers log; default `tonearm`. */
  clientName?: string;
}

export interface SubsonicServerInfo {
  version: string;
  type?: string;
  serverVersion?: string;
  openSubsonic?: boolean;
}

export interface NavidromeConnectionOk extends SubsonicServerInfo {
  ok: true;
}

type SubsonicParams = Record<string, string | number | boolean | Array<string | number> | undefined>;

/**
 * Subsonic error codes → what the product can act on. Messages name the code, never the server's
 * own text: the address may be anything a user typed.
 */
const errorKinds: Record<number, IntegrationErrorKind> = {
  0: 'server_error',
  10: 'bad_request',
  20: 'bad_response',
  30: 'bad_response',
  40: 'unauthorized',
  41: 'unauthorized',
  50: 'unauthorized',
  70: 'not_found',
};

export class NavidromeClient {
  private readonly timeoutMs: number;

  constructor(private readonly options: NavidromeClientOptions) {
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  /** Checks address and credentials; resolves with what the server says about itself. */
  async ping(): Promise<SubsonicServerInfo> {
    const envelope = await this.call('ping');
    return {
      version: String(envelope.version),
      ...(typeof envelope.type === 'string' ? { type: envelope.type } : {}),
      ...(typeof envelope.serverVersion === 'string' ? { serverVersion: envelope.serverVersion } : {}),
      ...(typeof envelope.openSubsonic === 'boolean' ? { openSubsonic: envelope.openSubsonic } : {}),
    };
  }

  /** Like ping, for the settings screen: throws the mapped error with the cause in plain words. */
  async testConnection(): Promise<NavidromeConnectionOk> {
    return { ok: true, ...(await this.ping()) };
  }

  /**
   * Calls one Subsonic method and returns the `subsonic-response` object when its status is ok.
   * Array parameters become repeated keys (`songId=a&songId=b`), as Subsonic expects.
   */
  async call(method: string, params: SubsonicParams = {}): Promise<Record<string, unknown>> {
    const salt = randomBytes(8).toString('hex');
    const auth = {
      u: this.options.username,
      t: createHash('md5').update(this.options.password + salt).digest('hex'),
      s: salt,
      v: API_VERSION,
      c: this.options.clientName ?? 'tonearm',
      f: 'json',
    };
    const url = joinUrl(this.options.baseUrl, `/rest/${method}`) + queryString({ ...params, ...auth });
    const where = redactUrl(url);
    const answer = await exchange({
      service: SERVICE,
      label: 'Navidrome',
      url,
      timeoutMs: this.timeoutMs,
    });
    if (answer.status === 401 || answer.status === 403) {
      throw new IntegrationError(SERVICE, 'unauthorized', `Navidrome refused the request (${answer.status})`, answer.status);
    }
    if (looksLikeHtml(answer) || answer.status === 404) throw notSubsonic(where, answer.status);
    if (answer.status === 429) throw new IntegrationError(SERVICE, 'rate_limited', 'Navidrome is rate limiting requests', 429);
    if (answer.status >= 500) {
      throw new IntegrationError(SERVICE, 'server_error', `Navidrome failed on ${method} (${answer.status})`, answer.status);
    }
    const body = parseJson(SERVICE, answer) as { 'subsonic-response'?: Record<string, unknown> } | undefined;
    const envelope = body?.['subsonic-response'];
    if (!envelope || typeof envelope !== 'object') throw notSubsonic(where, answer.status);
    if (envelope.status === 'ok') return envelope;
    throw envelopeError(method, envelope);
  }
}

function notSubsonic(where: string, status: number): IntegrationError {
  return new IntegrationError(
    SERVICE,
    'wrong_url',
    `not Navidrome at this URL: ${where} did not answer as a Subsonic server (check the URL and any base path)`,
    status,
  );
}

/** The Subsonic specification's meaning of each error code. */
const subsonicErrors: Record<number, string> = {
  0: 'a generic error',
  10: 'required parameter is missing',
  20: 'client too old',
  30: 'server too old',
  40: 'wrong username or password',
  41: 'token authentication not supported',
  50: 'user is not authorized for this operation',
  70: 'the requested data was not found',
};

function envelopeError(method: string, envelope: Record<string, unknown>): IntegrationError {
  const error = (envelope.error ?? {}) as { code?: unknown; message?: unknown };
  const code = typeof error.code === 'number' ? error.code : -1;
  const kind = errorKinds[code] ?? 'bad_response';
  const message =
    code === 40
      ? 'Navidrome rejected the username or password (Subsonic error 40)'
      : code === 41
        ? 'Navidrome does not accept token authentication for this user (Subsonic error 41)'
        : `Navidrome refused ${method} (Subsonic error ${code}${subsonicErrors[code] ? `: ${subsonicErrors[code]}` : ''})`;
  return new IntegrationError(SERVICE, kind, message, 200, { code });
}
