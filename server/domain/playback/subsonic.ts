import type { PlaybackRepository } from '../../db/playback.js';
import { IntegrationError } from '../../integrations/errors.js';
import { NavidromeClient, type SubsonicPlaylist, type SubsonicSong } from '../../integrations/navidrome/index.js';
import { matchTracksIn } from './matching.js';
import { NotConfiguredError } from '../errors.js';
import { testConnection } from '../settings/testConnection.js';
import type { Settings } from '../settings/schema.js';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';
import type { DestinationConnection, DestinationDeps, DestinationTestInput, DestinationTestResult, PlaybackDestination } from './types.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'log'> & { settings: SettingsStore };

/**
 * Publishing one playlist to a Subsonic server (Navidrome, supysonic, …): local tracks matched to
 * the server's songs (cached per account), the remote playlist found by its stored id, by the
 * marker in its comment or by name (so a run that created it but crashed before recording it never
 * makes a second one), then brought to the wanted order with as few calls as it takes.
 */

/** Songs per createPlaylist/updatePlaylist call: keeps every request line short. */
export const SONGS_PER_CALL = 50;
const BULK_PAGE = 500;
const BULK_MAX_SONGS = 200_000;
export { SCAN_COOLDOWN_MS } from './matching.js';

export interface SubsonicTarget {
  destination: string;
  /** The account identity the ids belong to (address and user). */
  account: string;
  username: string;
  client: NavidromeClient;
  repo: PlaybackRepository;
  now: () => number;
  signal?: AbortSignal;
  /** How long to wait for the server's scan before matching what it knows. */
  scanTimeoutMs: number;
  log?: { info(msg: string, fields?: Record<string, unknown>): void; warn(msg: string, fields?: Record<string, unknown>): void };
}

export interface PublishInput {
  name: string;
  /** Identifies our playlist in the remote comment: `Tonearm <kind>:<id>`. */
  marker: string;
  trackIds: number[];
  remoteId: string | null;
  /** Called as soon as the remote playlist's id is known, before tracks are added. */
  recordRemote: (remoteId: string) => void;
}

export interface PublishResult {
  remoteId: string;
  trackCount: number;
  matchedCount: number;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });

export { bestMatch, normalize, relativePath } from './matching.js';

/** Track ids → remote song ids, from the cache, then the server (after its scan when tracks are new to it). */
export function matchTracks(target: SubsonicTarget, trackIds: number[]): Promise<Map<number, string>> {
  return matchTracksIn(
    {
      destination: target.destination,
      account: target.account,
      repo: target.repo,
      now: target.now,
      search: (track) => target.client.searchSongs(track.title, { count: 50 }, target.signal),
      all: () => allSongs(target),
      scan: () => scanAndWait(target),
    },
    trackIds,
  );
}

/** Every song of the server (search3 with an empty query, paged); null when it is too large or will not list. */
async function allSongs(target: SubsonicTarget): Promise<SubsonicSong[] | null> {
  const songs: SubsonicSong[] = [];
  for (let offset = 0; offset < BULK_MAX_SONGS; offset += BULK_PAGE) {
    const page = await target.client.searchSongs('', { count: BULK_PAGE, offset }, target.signal);
    songs.push(...page);
    if (page.length < BULK_PAGE) return songs.length > 0 ? songs : null;
  }
  return null;
}

/** Asks the server to scan and waits for it (up to the timeout); false when it cannot scan (not an admin, no scanner). */
async function scanAndWait(target: SubsonicTarget): Promise<boolean> {
  const { client, destination } = target;
  try {
    let status = await client.startScan(target.signal);
    const until = Date.now() + target.scanTimeoutMs;
    let wait = 100;
    while (status.scanning && Date.now() < until && !target.signal?.aborted) {
      await sleep(wait, target.signal);
      wait = Math.min(wait * 2, 2000);
      status = await client.getScanStatus(target.signal);
    }
    if (status.scanning) target.log?.info('playback destination still scanning; matching what it knows', { destination });
    return true;
  } catch (err) {
    if (err instanceof IntegrationError && (err.kind === 'unreachable' || err.kind === 'timeout')) throw err;
    target.log?.warn('playback destination did not scan', { destination, error: err instanceof Error ? err.message : String(err) });
    return false;
  }
}

const markerOf = (comment: string) => /Tonearm (static|flow|shared):\S+/.exec(comment)?.[0] ?? null;

/** The remote playlist to update: by stored id, by our marker, or by name (a crash after creating it). */
async function findRemote(target: SubsonicTarget, input: PublishInput): Promise<{ id: string; name: string; comment: string; entries: string[] } | null> {
  const { client } = target;
  const read = async (id: string) => {
    const p = await client.getPlaylist(id, target.signal);
    return { id: p.id || id, name: p.name, comment: p.comment, entries: p.entries.map((e) => e.id) };
  };
  if (input.remoteId) {
    try {
      return await read(input.remoteId);
    } catch (err) {
      if (!(err instanceof IntegrationError && (err.kind === 'not_found' || err.kind === 'server_error'))) throw err;
      // Deleted there (or the id is not valid any more): find it again or make a new one.
    }
  }
  const lists = await client.getPlaylists(target.signal);
  const mine = (p: SubsonicPlaylist) => !p.owner || p.owner === target.username;
  const candidate =
    lists.find((p) => mine(p) && markerOf(p.comment) === input.marker) ??
    lists.find((p) => mine(p) && p.name === input.name && markerOf(p.comment) === null);
  return candidate ? read(candidate.id) : null;
}

/** Creates or updates the remote playlist so it holds exactly the matched songs, in order. */
export async function publishPlaylist(target: SubsonicTarget, input: PublishInput): Promise<PublishResult> {
  const { client } = target;
  const matched = await matchTracks(target, input.trackIds);
  const wanted = input.trackIds.map((id) => matched.get(id)).filter((id): id is string => !!id);
  let remote = await findRemote(target, input);
  let nameOk = true;
  let commentOk = false;
  if (remote) {
    input.recordRemote(remote.id);
    nameOk = remote.name === input.name;
    commentOk = markerOf(remote.comment) === input.marker;
  } else {
    const first = wanted.slice(0, SONGS_PER_CALL);
    let id = await withStaleSongs(target, first, () => client.createPlaylist(input.name, first, target.signal));
    if (!id) {
      // Servers that answer an empty ok (supysonic): findRemote saw no unmarked playlist of this name, so the one there now is ours.
      const created = (await client.getPlaylists(target.signal)).find((p) => p.name === input.name && markerOf(p.comment) === null && (!p.owner || p.owner === target.username));
      if (!created) throw new IntegrationError('navidrome', 'bad_response', 'the created playlist is not listed');
      id = created.id;
    }
    input.recordRemote(id);
    remote = { id, name: input.name, comment: '', entries: first };
  }
  const id = remote.id;
  if (!nameOk || !commentOk) {
    await client.updatePlaylist(id, { ...(!nameOk && { name: input.name }), ...(!commentOk && { comment: `${input.marker} · published by Tonearm` }) }, target.signal);
  }
  const { keep, removeIndexes } = planUpdate(remote.entries, wanted);
  // Highest indexes first, so the indexes of later calls still point at the same entries.
  for (let end = removeIndexes.length; end > 0; end -= SONGS_PER_CALL) {
    await client.updatePlaylist(id, { removeIndexes: removeIndexes.slice(Math.max(0, end - SONGS_PER_CALL), end) }, target.signal);
  }
  for (let i = keep; i < wanted.length; i += SONGS_PER_CALL) {
    const add = wanted.slice(i, i + SONGS_PER_CALL);
    await withStaleSongs(target, add, () => client.updatePlaylist(id, { add }, target.signal));
  }
  return { remoteId: id, trackCount: input.trackIds.length, matchedCount: wanted.length };
}

/**
 * Subsonic can only remove entries by index and append at the end. The longest start of the wanted
 * list that the remote list already holds in order is kept (every other entry removed); the rest of
 * the wanted list is appended. Moving, removing or appending a few tracks costs a few calls.
 * `removeIndexes` are ascending; `keep` is how many wanted songs are already in place.
 */
export function planUpdate(current: string[], wanted: string[]): { keep: number; removeIndexes: number[] } {
  const kept = new Set<number>();
  let j = 0;
  let keep = 0;
  for (; keep < wanted.length; keep++) {
    while (j < current.length && current[j] !== wanted[keep]) j++;
    if (j >= current.length) break;
    kept.add(j++);
  }
  const removeIndexes: number[] = [];
  for (let i = 0; i < current.length; i++) if (!kept.has(i)) removeIndexes.push(i);
  return { keep, removeIndexes };
}

/** A song id the server no longer knows (rescanned, file moved): forget those matches so the next run finds them again. */
async function withStaleSongs<T>(target: SubsonicTarget, songIds: string[], call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof IntegrationError && err.kind === 'not_found') target.repo.dropMatches(target.destination, target.account, songIds);
    throw err;
  }
}

/** Deletes our playlist there (by id, else by marker); an already missing one is fine. */
export async function unpublishPlaylist(target: SubsonicTarget, remoteId: string | null, marker: string): Promise<void> {
  const { client } = target;
  let id = remoteId;
  if (!id) {
    const lists = await client.getPlaylists(target.signal);
    id = lists.find((p) => (!p.owner || p.owner === target.username) && markerOf(p.comment) === marker)?.id ?? null;
  }
  if (!id) return;
  try {
    await client.deletePlaylist(id, target.signal);
  } catch (err) {
    if (err instanceof IntegrationError && err.kind === 'not_found') return;
    throw err;
  }
}

// ---- the destination --------------------------------------------------------------------------

function subsonicConnection(settings: Settings) {
  const c = settings.integrations.navidrome;
  const options = settings.playback.navidrome;
  const configured = c.url !== '' && c.username !== '' && c.password !== '';
  return { ...c, ...options, integrationEnabled: c.enabled, publishing: options.enabled && c.enabled && configured, configured };
}

/** Identifies the account remote ids belong to: another address or user starts afresh. */
const accountOf = (url: string, username: string) => `${url.replace(/\/+$/, '')}|${username}`;

/** Navidrome or any Subsonic server (`integrations.navidrome` + `playback.navidrome`). */
export function subsonicDestination(deps: DestinationDeps<Deps>): PlaybackDestination {
  const { ctx, repo } = deps;
  const def = { key: 'navidrome' as const, name: 'Navidrome' };
  const connection = (settings: Settings): DestinationConnection => {
    const c = subsonicConnection(settings);
    return {
      enabled: c.enabled,
      configured: c.configured,
      publishing: c.publishing,
      publishFlows: c.publishFlows,
      publishPlaylists: c.publishPlaylists,
      ownerPrefix: c.ownerPrefix,
      account: accountOf(c.url, c.username),
      fingerprint: JSON.stringify([c.publishing, c.url, c.username, c.password, c.publishFlows, c.publishPlaylists, c.ownerPrefix]),
    };
  };
  const target = (account: string, signal: AbortSignal): SubsonicTarget => {
    const c = subsonicConnection(ctx.settings.get());
    return {
      destination: def.key,
      account,
      username: c.username,
      client: new NavidromeClient({ baseUrl: c.url, username: c.username, password: c.password, timeoutMs: 20_000, label: def.name }),
      repo,
      now: () => ctx.clock.now(),
      signal,
      scanTimeoutMs: c.scanTimeoutSeconds * 1000,
      log: ctx.log,
    };
  };

  /**
   * Checks the server with the given (or saved) credentials: ping, and whether the account may
   * manage playlists and ask for scans. The saved password only goes to the saved address. A success
   * with the saved connection makes waiting retries due now.
   */
  const test = async (input: DestinationTestInput): Promise<DestinationTestResult> => {
    const saved = subsonicConnection(ctx.settings.get());
    const notConfigured = `${def.name} is not configured: set its URL, username and password`;
    const { url, secret: password } = testConnection({ setting: `integrations.${def.key}`, field: 'password', saved, body: input, notConfigured, secretRequired: false });
    const username = input.username ?? saved.username;
    if (!username) throw new NotConfiguredError(`integrations.${def.key}`, notConfigured);
    const client = new NavidromeClient({ baseUrl: url, username, password, timeoutMs: 10_000, label: def.name });
    const info = await client.ping();
    const playlists = await client.getPlaylists();
    let canScan = true;
    try {
      await client.getScanStatus();
    } catch (err) {
      if (!(err instanceof IntegrationError) || err.kind === 'unreachable' || err.kind === 'timeout') throw err;
      canScan = false;
    }
    if (saved.publishing && url === saved.url && username === saved.username) deps.retryNow(def.key);
    return {
      success: true,
      key: def.key,
      version: info.version,
      type: info.type ?? null,
      serverVersion: info.serverVersion ?? null,
      authentication: client.authMode,
      playlists: playlists.length,
      canScan,
      message: `Connected to ${info.type ?? 'a Subsonic server'} ${info.serverVersion ?? info.version}${canScan ? '' : ' (this user cannot start library scans: new tracks are matched after the server scans on its own)'}`,
    };
  };

  return {
    ...def,
    connection,
    publish: (p) => publishPlaylist(target(p.account, p.signal), p),
    unpublish: (p) => unpublishPlaylist(target(p.account, p.signal), p.remoteId, p.marker),
    test,
  };
}
