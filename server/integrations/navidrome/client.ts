import { createHash, randomBytes } from 'node:crypto';
import { IntegrationError, type IntegrationErrorKind } from '../errors.js';
import { exchange, joinUrl, looksLikeHtml, parseJson, queryString, redactUrl } from '../http.js';

/**
 * A small Subsonic client for Navidrome and any other Subsonic server: token authentication
 * (`t = md5(password + s)` with a fresh random salt per request), falling back to the hex-encoded
 * password (`p=enc:…`) for servers that refuse tokens (older Subsonic API versions, supysonic), and
 * the Subsonic envelope mapped to IntegrationErrors. Also the calls a playback destination needs:
 * playlists, search3 and the library scan.
 */
const SERVICE = 'navidrome';
const API_VERSION = '1.16.1';
/** Token authentication arrived with Subsonic API 1.13.0. */
const TOKEN_API = [1, 13, 0];

export interface NavidromeClientOptions {
  /** Navidrome's address, including any base path, e.g. `http://nas:4533`; `/rest/<method>` is appended. */
  baseUrl: string;
  username: string;
  password: string;
  /** Per-request timeout; default 15 s. */
  timeoutMs?: number;
  /** The `c` parameter Subsonic servers log; default `tonearm`. */
  clientName?: string;
  /** How messages name the server; default `Navidrome`. */
  label?: string;
  /**
   * `auto` (default): token authentication, switching to the encoded password when the server
   * answers that it does not support tokens; `token` or `password` to force one.
   */
  auth?: 'auto' | 'token' | 'password';
}

/** A song as Subsonic servers describe it (the fields matching needs). */
export interface SubsonicSong {
  id: string;
  title: string;
  artist: string;
  album: string;
  /** Relative to the server's music folder, e.g. `Artist/Album/01 - Title.flac`, when the server tells. */
  path: string | null;
  durationSeconds: number | null;
  track: number | null;
  musicBrainzId: string | null;
}

export interface SubsonicPlaylist {
  id: string;
  name: string;
  comment: string;
  owner: string | null;
  songCount: number;
}

export interface SubsonicPlaylistWithSongs extends SubsonicPlaylist {
  entries: SubsonicSong[];
}

export interface SubsonicScanStatus {
  scanning: boolean;
  count: number;
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
  private readonly label: string;
  /** The authentication in use; `auto` starts with tokens and may move to the password once. */
  private mode: 'token' | 'password';

  constructor(private readonly options: NavidromeClientOptions) {
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.label = options.label ?? 'Navidrome';
    this.mode = options.auth === 'password' ? 'password' : 'token';
  }

  /** `token` or `password`: what the last call authenticated with. */
  get authMode(): 'token' | 'password' {
    return this.mode;
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
  async call(method: string, params: SubsonicParams = {}, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const mode = this.mode;
    const envelope = await this.request(method, params, mode, signal);
    if (envelope.status === 'ok') return envelope;
    if (mode === 'token' && (this.options.auth ?? 'auto') === 'auto' && refusesTokens(envelope)) {
      this.mode = 'password';
      const again = await this.request(method, params, 'password', signal);
      if (again.status === 'ok') return again;
      throw envelopeError(this.label, method, again);
    }
    throw envelopeError(this.label, method, envelope);
  }

  private async request(method: string, params: SubsonicParams, mode: 'token' | 'password', signal?: AbortSignal): Promise<Record<string, unknown>> {
    const salt = randomBytes(8).toString('hex');
    const credentials =
      mode === 'token'
        ? { t: createHash('md5').update(this.options.password + salt).digest('hex'), s: salt }
        : { p: `enc:${Buffer.from(this.options.password, 'utf8').toString('hex')}` };
    const auth = { u: this.options.username, ...credentials, v: API_VERSION, c: this.options.clientName ?? 'tonearm', f: 'json' };
    const url = joinUrl(this.options.baseUrl, `/rest/${method}`) + queryString({ ...params, ...auth });
    const where = redactUrl(url);
    const label = this.label;
    const answer = await exchange({ service: SERVICE, label, url, timeoutMs: this.timeoutMs, ...(signal && { signal }) });
    if (answer.status === 401 || answer.status === 403) {
      throw new IntegrationError(SERVICE, 'unauthorized', `${label} refused the request (${answer.status})`, answer.status);
    }
    if (looksLikeHtml(answer) || answer.status === 404) throw notSubsonic(label, where, answer.status);
    if (answer.status === 429) throw new IntegrationError(SERVICE, 'rate_limited', `${label} is rate limiting requests`, 429);
    if (answer.status >= 500) {
      throw new IntegrationError(SERVICE, 'server_error', `${label} failed on ${method} (${answer.status})`, answer.status);
    }
    const body = parseJson(SERVICE, answer) as { 'subsonic-response'?: Record<string, unknown> } | undefined;
    const envelope = body?.['subsonic-response'];
    if (!envelope || typeof envelope !== 'object') throw notSubsonic(label, where, answer.status);
    return envelope;
  }

  /** The account's playlists (and public ones of others, as the server lists them). */
  async getPlaylists(signal?: AbortSignal): Promise<SubsonicPlaylist[]> {
    const envelope = await this.call('getPlaylists', {}, signal);
    return asArray((envelope.playlists as { playlist?: unknown } | undefined)?.playlist).map(playlistOf);
  }

  /** One playlist with its songs in order; not_found when it is gone. */
  async getPlaylist(id: string, signal?: AbortSignal): Promise<SubsonicPlaylistWithSongs> {
    const envelope = await this.call('getPlaylist', { id }, signal);
    const raw = (envelope.playlist ?? {}) as Record<string, unknown>;
    return { ...playlistOf(raw), entries: asArray(raw.entry).map(songOf) };
  }

  /**
   * Creates a playlist; resolves with its id when the server returns the playlist (Navidrome),
   * null when it answers an empty ok (supysonic, older Subsonic): the caller finds it by name then.
   */
  async createPlaylist(name: string, songIds: string[], signal?: AbortSignal): Promise<string | null> {
    const envelope = await this.call('createPlaylist', { name, songId: songIds }, signal);
    const raw = envelope.playlist as Record<string, unknown> | undefined;
    return raw && raw.id !== undefined ? String(raw.id) : null;
  }

  /** Renames, comments, appends songs and removes entries by index (indexes of the list before this call). */
  async updatePlaylist(
    id: string,
    change: { name?: string; comment?: string; add?: string[]; removeIndexes?: number[] },
    signal?: AbortSignal,
  ): Promise<void> {
    await this.call(
      'updatePlaylist',
      {
        playlistId: id,
        name: change.name,
        comment: change.comment,
        songIdToAdd: change.add?.length ? change.add : undefined,
        songIndexToRemove: change.removeIndexes?.length ? change.removeIndexes : undefined,
      },
      signal,
    );
  }

  async deletePlaylist(id: string, signal?: AbortSignal): Promise<void> {
    await this.call('deletePlaylist', { id }, signal);
  }

  /** Songs whose title (Navidrome: any of title, artist, album) matches; an empty query lists every song, paged. */
  async searchSongs(query: string, options: { count?: number; offset?: number } = {}, signal?: AbortSignal): Promise<SubsonicSong[]> {
    const envelope = await this.call(
      'search3',
      { query, songCount: options.count ?? 20, songOffset: options.offset ?? 0, artistCount: 0, albumCount: 0 },
      signal,
    );
    return asArray((envelope.searchResult3 as { song?: unknown } | undefined)?.song).map(songOf);
  }

  async startScan(signal?: AbortSignal): Promise<SubsonicScanStatus> {
    return scanStatusOf(await this.call('startScan', {}, signal));
  }

  async getScanStatus(signal?: AbortSignal): Promise<SubsonicScanStatus> {
    return scanStatusOf(await this.call('getScanStatus', {}, signal));
  }
}

/**
 * Error 41 says so outright; servers older than API 1.13 (supysonic answers 1.10.2) know no token
 * and answer that the password parameter is missing (error 10).
 */
function refusesTokens(envelope: Record<string, unknown>): boolean {
  const code = (envelope.error as { code?: unknown } | undefined)?.code;
  if (code === 41) return true;
  if (code !== 10 || typeof envelope.version !== 'string') return false;
  const v = envelope.version.split('.').map((n) => Number(n) || 0);
  for (let i = 0; i < 3; i++) if ((v[i] ?? 0) !== TOKEN_API[i]) return (v[i] ?? 0) < TOKEN_API[i]!;
  return false;
}

/** Subsonic JSON collapses one-element lists to an object and leaves empty ones out. */
function asArray(value: unknown): Record<string, unknown>[] {
  if (Array.isArray(value)) return value.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null);
  return typeof value === 'object' && value !== null ? [value as Record<string, unknown>] : [];
}

const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v !== '' && Number.isFinite(Number(v)) ? Number(v) : null);

function playlistOf(raw: Record<string, unknown>): SubsonicPlaylist {
  return { id: str(raw.id), name: str(raw.name), comment: str(raw.comment), owner: str(raw.owner) || null, songCount: num(raw.songCount) ?? 0 };
}

function songOf(raw: Record<string, unknown>): SubsonicSong {
  return {
    id: str(raw.id),
    title: str(raw.title),
    artist: str(raw.artist),
    album: str(raw.album),
    path: str(raw.path) || null,
    durationSeconds: num(raw.duration),
    track: num(raw.track),
    musicBrainzId: str(raw.musicBrainzId) || null,
  };
}

function scanStatusOf(envelope: Record<string, unknown>): SubsonicScanStatus {
  const raw = (envelope.scanStatus ?? {}) as Record<string, unknown>;
  return { scanning: raw.scanning === true || raw.scanning === 'true', count: num(raw.count) ?? 0 };
}

function notSubsonic(label: string, where: string, status: number): IntegrationError {
  return new IntegrationError(
    SERVICE,
    'wrong_url',
    `not ${label} at this URL: ${where} did not answer as a Subsonic server (check the URL and any base path)`,
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

function envelopeError(label: string, method: string, envelope: Record<string, unknown>): IntegrationError {
  const error = (envelope.error ?? {}) as { code?: unknown; message?: unknown };
  const code = typeof error.code === 'number' ? error.code : -1;
  const kind = errorKinds[code] ?? 'bad_response';
  const message =
    code === 40
      ? `${label} rejected the username or password (Subsonic error 40)`
      : code === 41
        ? `${label} does not accept token authentication for this user (Subsonic error 41)`
        : `${label} refused ${method} (Subsonic error ${code}${subsonicErrors[code] ? `: ${subsonicErrors[code]}` : ''})`;
  return new IntegrationError(SERVICE, kind, message, 200, { code });
}
