import { IntegrationError } from '../errors.js';
import { exchange, joinUrl, looksLikeHtml, parseJson, queryString, redactUrl, type HttpAnswer } from '../http.js';

/**
 * A small Jellyfin client for publishing playlists: an API key in the `Authorization: MediaBrowser`
 * header (never in the URL), JSON answers, and failures as IntegrationErrors. The calls a playback
 * destination needs: the server's info, its users, audio items (searched or listed, with their
 * paths and MusicBrainz ids), a user's playlists and their entries, and a library scan.
 */
const SERVICE = 'jellyfin';
const CLIENT_VERSION = '1.0.0';

export interface JellyfinClientOptions {
  /** Jellyfin's address, including any base URL, e.g. `http://nas:8096/jellyfin`. */
  baseUrl: string;
  apiKey: string;
  /** Per request; default 15 s. */
  timeoutMs?: number;
}

export interface JellyfinUser {
  id: string;
  name: string;
  isAdministrator: boolean;
}

export interface JellyfinSystemInfo {
  version: string;
  serverName: string;
  productName: string;
}

/** An audio item as matching needs it. */
export interface JellyfinAudio {
  id: string;
  title: string;
  artist: string;
  album: string;
  /** Where Jellyfin sees the file (its own host or container path). */
  path: string | null;
  durationSeconds: number | null;
  /** The MusicBrainz recording id (`MusicBrainzRecording`, 10.9+; else `MusicBrainzTrack`). */
  musicBrainzId: string | null;
}

export interface JellyfinPlaylist {
  id: string;
  name: string;
  overview: string;
}

export interface JellyfinEntry {
  /** The audio item. */
  id: string;
  /** This entry of the playlist (what removing and moving take). */
  playlistItemId: string;
}

export interface JellyfinTask {
  key: string;
  state: string;
}

type Method = 'GET' | 'POST' | 'DELETE';
type Json = Record<string, unknown>;

const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter((x): x is Json => typeof x === 'object' && x !== null) : []);

/** Jellyfin's ticks are 100 ns. */
const TICKS_PER_SECOND = 10_000_000;

export function audioOf(raw: Json): JellyfinAudio {
  const providers = obj(raw.ProviderIds);
  const artists = Array.isArray(raw.Artists) ? raw.Artists.filter((a): a is string => typeof a === 'string') : [];
  const ticks = typeof raw.RunTimeTicks === 'number' ? raw.RunTimeTicks : null;
  return {
    id: str(raw.Id),
    title: str(raw.Name),
    artist: artists.length > 0 ? artists.join(', ') : str(raw.AlbumArtist),
    album: str(raw.Album),
    path: str(raw.Path) || null,
    durationSeconds: ticks === null ? null : ticks / TICKS_PER_SECOND,
    musicBrainzId: (str(providers.MusicBrainzRecording) || str(providers.MusicBrainzTrack) || null)?.toLowerCase() ?? null,
  };
}

export class JellyfinClient {
  private readonly timeoutMs: number;

  constructor(private readonly options: JellyfinClientOptions) {
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  /** The header Jellyfin 10.8+ reads (older servers take `X-Emby-Token`, sent too). */
  private headers(): Record<string, string> {
    const key = this.options.apiKey.replace(/"/g, '');
    return {
      Authorization: `MediaBrowser Client="Tonearm", Device="Tonearm", DeviceId="tonearm-playback", Version="${CLIENT_VERSION}", Token="${key}"`,
      'X-Emby-Token': key,
    };
  }

  async call(method: Method, path: string, query?: Record<string, unknown>, body?: unknown, signal?: AbortSignal): Promise<unknown> {
    const url = joinUrl(this.options.baseUrl, path) + queryString(query);
    const answer = await exchange({
      service: SERVICE,
      label: 'Jellyfin',
      url,
      method,
      headers: this.headers(),
      ...(body !== undefined && { body }),
      timeoutMs: this.timeoutMs,
      ...(signal && { signal }),
    });
    if (answer.status >= 200 && answer.status < 300) {
      if (looksLikeHtml(answer)) throw notJellyfin(url, answer);
      return parseJson(SERVICE, answer);
    }
    throw statusError(method, url, answer);
  }

  async systemInfo(signal?: AbortSignal): Promise<JellyfinSystemInfo> {
    const raw = obj(await this.call('GET', '/System/Info', undefined, undefined, signal));
    if (typeof raw.Version !== 'string') throw new IntegrationError(SERVICE, 'wrong_url', `${redactUrl(this.options.baseUrl)} did not answer as a Jellyfin server (check the URL and any base URL)`);
    return { version: raw.Version, serverName: str(raw.ServerName), productName: str(raw.ProductName) || 'Jellyfin Server' };
  }

  async users(signal?: AbortSignal): Promise<JellyfinUser[]> {
    return list(await this.call('GET', '/Users', undefined, undefined, signal)).map((u) => ({
      id: str(u.Id),
      name: str(u.Name),
      isAdministrator: obj(u.Policy).IsAdministrator === true,
    }));
  }

  /** Audio items the user can see: those matching `searchTerm`, or every one (paged) without it. */
  async audio(userId: string, options: { searchTerm?: string; startIndex?: number; limit?: number } = {}, signal?: AbortSignal): Promise<{ items: JellyfinAudio[]; total: number }> {
    const raw = obj(
      await this.call(
        'GET',
        '/Items',
        {
          userId,
          recursive: true,
          includeItemTypes: 'Audio',
          fields: 'Path,ProviderIds',
          enableImages: false,
          enableUserData: false,
          searchTerm: options.searchTerm || undefined,
          startIndex: options.startIndex ?? 0,
          limit: options.limit ?? 50,
        },
        undefined,
        signal,
      ),
    );
    return { items: list(raw.Items).map(audioOf), total: typeof raw.TotalRecordCount === 'number' ? raw.TotalRecordCount : 0 };
  }

  /** The playlists the user sees (their own, and in 10.9+ those shared with them). */
  async playlists(userId: string, signal?: AbortSignal): Promise<JellyfinPlaylist[]> {
    const raw = obj(
      await this.call('GET', '/Items', { userId, recursive: true, includeItemTypes: 'Playlist', fields: 'Overview', enableImages: false }, undefined, signal),
    );
    return list(raw.Items).map((p) => ({ id: str(p.Id), name: str(p.Name), overview: str(p.Overview) }));
  }

  /** Makes a playlist owned by the user; resolves with its id. */
  async createPlaylist(input: { name: string; userId: string; ids: string[] }, signal?: AbortSignal): Promise<string> {
    const raw = obj(await this.call('POST', '/Playlists', undefined, { Name: input.name, Ids: input.ids, UserId: input.userId, MediaType: 'Audio' }, signal));
    const id = str(raw.Id);
    if (!id) throw new IntegrationError(SERVICE, 'bad_response', 'Jellyfin did not answer the new playlist’s id');
    return id;
  }

  /** The playlist's entries in order; not_found when it is gone. */
  async entries(playlistId: string, userId: string, signal?: AbortSignal): Promise<JellyfinEntry[]> {
    const raw = obj(await this.call('GET', `/Playlists/${encodeURIComponent(playlistId)}/Items`, { userId, enableImages: false, enableUserData: false }, undefined, signal));
    return list(raw.Items).map((i) => ({ id: str(i.Id), playlistItemId: str(i.PlaylistItemId) }));
  }

  async addEntries(playlistId: string, userId: string, ids: string[], signal?: AbortSignal): Promise<void> {
    await this.call('POST', `/Playlists/${encodeURIComponent(playlistId)}/Items`, { ids: ids.join(','), userId }, undefined, signal);
  }

  async removeEntries(playlistId: string, entryIds: string[], signal?: AbortSignal): Promise<void> {
    await this.call('DELETE', `/Playlists/${encodeURIComponent(playlistId)}/Items`, { entryIds: entryIds.join(',') }, undefined, signal);
  }

  async moveEntry(playlistId: string, playlistItemId: string, newIndex: number, signal?: AbortSignal): Promise<void> {
    await this.call('POST', `/Playlists/${encodeURIComponent(playlistId)}/Items/${encodeURIComponent(playlistItemId)}/Move/${newIndex}`, undefined, undefined, signal);
  }

  /**
   * Renames the item and sets its overview. Jellyfin's item update takes the whole item: it is
   * read as the user sees it, changed and sent back.
   */
  async updateItem(itemId: string, userId: string, change: { name?: string; overview?: string }, signal?: AbortSignal): Promise<void> {
    const path = `/Items/${encodeURIComponent(itemId)}`;
    let item: Json;
    try {
      item = obj(await this.call('GET', path, { userId }, undefined, signal));
    } catch (err) {
      // Before 10.9 an item is read under its user.
      if (!(err instanceof IntegrationError && err.kind === 'not_found')) throw err;
      item = obj(await this.call('GET', `/Users/${encodeURIComponent(userId)}/Items/${encodeURIComponent(itemId)}`, undefined, undefined, signal));
    }
    await this.call('POST', path, undefined, { ...item, ...(change.name !== undefined && { Name: change.name }), ...(change.overview !== undefined && { Overview: change.overview }) }, signal);
  }

  async deleteItem(itemId: string, signal?: AbortSignal): Promise<void> {
    await this.call('DELETE', `/Items/${encodeURIComponent(itemId)}`, undefined, undefined, signal);
  }

  /** Starts a scan of every library (it runs on its own; `tasks` tells when it is done). */
  async refreshLibrary(signal?: AbortSignal): Promise<void> {
    await this.call('POST', '/Library/Refresh', undefined, undefined, signal);
  }

  async tasks(signal?: AbortSignal): Promise<JellyfinTask[]> {
    return list(await this.call('GET', '/ScheduledTasks', { isHidden: false }, undefined, signal)).map((t) => ({ key: str(t.Key), state: str(t.State) }));
  }
}

function notJellyfin(url: string, answer: HttpAnswer): IntegrationError {
  return new IntegrationError(SERVICE, 'wrong_url', `not Jellyfin at this URL: ${redactUrl(url)} answered a web page (check the URL and any base URL)`, answer.status);
}

function statusError(method: Method, url: string, answer: HttpAnswer): IntegrationError {
  const where = `Jellyfin answered ${answer.status} to ${method} ${redactUrl(url)}`;
  const s = answer.status;
  if (s === 401 || s === 403) return new IntegrationError(SERVICE, 'unauthorized', `${where}: the API key was refused`, s);
  // Every Jellyfin answers /System/Info: a 404 there (or a web page) is another server or base URL.
  if (s === 404) return looksLikeHtml(answer) || new URL(url).pathname.endsWith('/System/Info') ? notJellyfin(url, answer) : new IntegrationError(SERVICE, 'not_found', where, s);
  if (s === 429) return new IntegrationError(SERVICE, 'rate_limited', where, s);
  if (s === 400 || s === 422) return new IntegrationError(SERVICE, 'bad_request', where, s);
  if (s >= 500 || s === 408) return new IntegrationError(SERVICE, 'server_error', where, s);
  return new IntegrationError(SERVICE, 'bad_response', where, s);
}
