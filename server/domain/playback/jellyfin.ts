import { jellyfinUsers } from '../../db/jellyfin.js';
import type { PlaybackRepository } from '../../db/playback.js';
import { IntegrationError } from '../../integrations/errors.js';
import { JellyfinClient, type JellyfinPlaylist, type JellyfinUser } from '../../integrations/jellyfin/index.js';
import { sleep } from '../../sleep.js';
import { NotConfiguredError, NotFoundError, ValidationError } from '../errors.js';
import { testConnection } from '../settings/testConnection.js';
import type { Settings } from '../settings/schema.js';
import { matchTracksIn, type MatchCandidate } from './matching.js';
import type { DestinationConnection, DestinationDeps, DestinationPublish, DestinationTestInput, DestinationTestResult, PlaybackDestination } from './types.js';
import { planUpdate } from './subsonic.js';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';
import type { UsersService } from '../users/service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'db' | 'log'> & { settings: SettingsStore; users: UsersService };

/**
 * Publishing one playlist to Jellyfin as a native playlist of a Jellyfin user: the user chosen for
 * its Tonearm owner (jellyfin_users), else the one of `playback.jellyfin.userId`, else Jellyfin's
 * first administrator. Tracks are matched to Jellyfin's audio items by path (when Jellyfin shares
 * the music folder), then MusicBrainz recording id, then artist, album and title (matching.ts);
 * tracks Jellyfin does not know make it scan its libraries once (at most every few minutes). The
 * remote playlist is found by its stored id, then by the marker in its overview, then by an
 * unmarked playlist of the same name (a run that created it but failed before recording it), so a
 * retry never makes a second one. Entries are removed by PlaylistItemId and appended by item id.
 */

export const JELLYFIN_DESTINATION = 'jellyfin';
/** Item ids per add or remove call: keeps every request line short. */
const IDS_PER_CALL = 50;
const BULK_PAGE = 500;
const BULK_MAX_SONGS = 200_000;

const markerIn = (overview: string) => /Tonearm (static|flow|shared):\S+/.exec(overview)?.[0] ?? null;
export const overviewOf = (marker: string) => `${marker} · published by Tonearm`;
const transient = (err: unknown) => err instanceof IntegrationError && (err.kind === 'unreachable' || err.kind === 'timeout');

const baseOf = (url: string) => url.replace(/\/+$/, '');
/** A publication account: the server and the Jellyfin user ('' = its first administrator). */
export const jellyfinAccount = (url: string, jellyfinUserId: string) => `${baseOf(url)}|user:${jellyfinUserId.replace(/-/g, '').toLowerCase()}`;
const splitAccount = (account: string) => {
  const at = account.lastIndexOf('|user:');
  return at < 0 ? { base: account, user: '' } : { base: account.slice(0, at), user: account.slice(at + 6) };
};

function clientOf(settings: Settings, timeoutMs = 20_000): JellyfinClient {
  const o = settings.playback.jellyfin;
  return new JellyfinClient({ baseUrl: o.url, apiKey: o.apiKey, timeoutMs });
}

/** The Jellyfin user an account string names: its id, or Jellyfin's first administrator for ''. */
async function userOf(client: JellyfinClient, account: string, signal?: AbortSignal): Promise<string> {
  const { user } = splitAccount(account);
  if (user) return user;
  const users = await client.users(signal);
  const admin = users.find((u) => u.isAdministrator) ?? users[0];
  if (!admin) throw new NotConfiguredError('playback.jellyfin.userId', 'Jellyfin lists no users: choose the Jellyfin user for playlists in Settings → Playback');
  return admin.id;
}

/** The user's playlists; a user Jellyfin no longer knows says so in words. */
async function playlistsOf(client: JellyfinClient, userId: string, signal?: AbortSignal): Promise<JellyfinPlaylist[]> {
  try {
    return await client.playlists(userId, signal);
  } catch (err) {
    if (err instanceof IntegrationError && err.kind === 'not_found') {
      throw new IntegrationError('jellyfin', 'not_found', `Jellyfin has no user ${userId} any more: choose another in Settings → Playback`, 404);
    }
    throw err;
  }
}

interface JellyfinTarget {
  ctx: Deps;
  repo: PlaybackRepository;
  client: JellyfinClient;
  account: string;
  userId: string;
  scanTimeoutMs: number;
  signal: AbortSignal;
}

/** Library track ids → Jellyfin item ids of the target user (cached per account). */
function matchTracks(t: JellyfinTarget, trackIds: number[]): Promise<Map<number, string>> {
  const { client, userId, signal } = t;
  return matchTracksIn(
    {
      destination: JELLYFIN_DESTINATION,
      account: t.account,
      repo: t.repo,
      now: () => t.ctx.clock.now(),
      search: async (track): Promise<MatchCandidate[]> => (await client.audio(userId, { searchTerm: track.title, limit: 50 }, signal)).items,
      all: async () => {
        const all: MatchCandidate[] = [];
        for (let start = 0; start < BULK_MAX_SONGS; start += BULK_PAGE) {
          const page = await client.audio(userId, { startIndex: start, limit: BULK_PAGE }, signal);
          all.push(...page.items);
          if (page.items.length < BULK_PAGE || all.length >= page.total) return all.length > 0 ? all : null;
        }
        return null;
      },
      scan: () => scanAndWait(t),
    },
    trackIds,
  );
}

/** Asks Jellyfin to scan its libraries and waits for its RefreshLibrary task (up to the timeout). */
async function scanAndWait(t: JellyfinTarget): Promise<boolean> {
  try {
    await t.client.refreshLibrary(t.signal);
  } catch (err) {
    if (transient(err)) throw err;
    t.ctx.log.warn('Jellyfin did not start a library scan', { error: err instanceof Error ? err.message : String(err) });
    return false;
  }
  const started = Date.now();
  let seenRunning = false;
  let wait = 100;
  while (Date.now() - started < t.scanTimeoutMs && !t.signal.aborted) {
    let state: string | undefined;
    try {
      state = (await t.client.tasks(t.signal)).find((task) => task.key === 'RefreshLibrary')?.state;
    } catch (err) {
      if (transient(err)) throw err;
      return true; // cannot tell: match what it knows now
    }
    if (state === undefined) return true;
    if (state !== 'Idle') seenRunning = true;
    // The task starts a moment after the request: Idle counts as done once it ran (or after a second).
    else if (seenRunning || Date.now() - started > 1000) return true;
    await sleep(wait, t.signal).catch(() => undefined);
    wait = Math.min(wait * 2, 2000);
  }
  t.ctx.log.info('Jellyfin still scanning; matching what it knows', {});
  return true;
}

function findIn(lists: JellyfinPlaylist[], input: { remoteId: string | null; marker: string; name?: string }): JellyfinPlaylist | null {
  return (
    (input.remoteId ? lists.find((p) => p.id === input.remoteId) : undefined) ??
    lists.find((p) => markerIn(p.overview) === input.marker) ??
    (input.name !== undefined ? lists.find((p) => p.name === input.name && markerIn(p.overview) === null) : undefined) ??
    null
  );
}

/** Creates or updates the Jellyfin playlist so it holds exactly the matched items, in order. */
async function publishToJellyfin(t: JellyfinTarget, input: DestinationPublish): Promise<{ remoteId: string; trackCount: number; matchedCount: number }> {
  const { client, userId, signal } = t;
  const matched = await matchTracks(t, input.trackIds);
  const wanted = input.trackIds.map((id) => matched.get(id)).filter((id): id is string => !!id);
  const result = (remoteId: string) => ({ remoteId, trackCount: input.trackIds.length, matchedCount: wanted.length });
  let remote = findIn(await playlistsOf(client, userId, signal), input);
  if (!remote) {
    const first = wanted.slice(0, IDS_PER_CALL);
    const id = await client.createPlaylist({ name: input.name, userId, ids: first }, signal);
    input.recordRemote(id);
    remote = { id, name: input.name, overview: '' };
  } else input.recordRemote(remote.id);
  const id = remote.id;
  if (remote.name !== input.name || markerIn(remote.overview) !== input.marker) {
    await client.updateItem(id, userId, { ...(remote.name !== input.name && { name: input.name }), overview: overviewOf(input.marker) }, signal);
  }
  const entries = await client.entries(id, userId, signal);
  // The longest in-order run of wanted items is kept, every other entry removed and the rest appended.
  const { keep, removeIndexes } = planUpdate(
    entries.map((e) => e.id),
    wanted,
  );
  for (let i = 0; i < removeIndexes.length; i += IDS_PER_CALL) {
    await client.removeEntries(id, removeIndexes.slice(i, i + IDS_PER_CALL).map((index) => entries[index]!.playlistItemId), signal);
  }
  for (let i = keep; i < wanted.length; i += IDS_PER_CALL) {
    const add = wanted.slice(i, i + IDS_PER_CALL);
    await client.addEntries(id, userId, add, signal);
  }
  if (keep < wanted.length) {
    // Jellyfin skips ids it no longer knows (an item rescanned away): those matches are forgotten,
    // so the publication is tried again later and matches those tracks anew.
    const present = new Set((await client.entries(id, userId, signal)).map((e) => e.id));
    const stale = [...new Set(wanted.slice(keep))].filter((itemId) => !present.has(itemId));
    if (stale.length > 0) {
      t.repo.dropMatches(JELLYFIN_DESTINATION, t.account, stale);
      const gone = new Set(stale);
      return { remoteId: id, trackCount: input.trackIds.length, matchedCount: wanted.filter((itemId) => !gone.has(itemId)).length };
    }
  }
  return result(id);
}

/** Deletes our playlist there (by stored id, else by marker); one already gone is fine. */
async function unpublishFromJellyfin(t: Omit<JellyfinTarget, 'userId' | 'scanTimeoutMs'>, remoteId: string | null, marker: string): Promise<void> {
  let id = remoteId;
  if (!id) {
    let lists: JellyfinPlaylist[];
    try {
      lists = await t.client.playlists(await userOf(t.client, t.account, t.signal), t.signal);
    } catch (err) {
      // The user is gone there, and their playlists with them.
      if (err instanceof IntegrationError && err.kind === 'not_found') return;
      throw err;
    }
    id = findIn(lists, { remoteId: null, marker })?.id ?? null;
  }
  if (!id) return;
  try {
    await t.client.deleteItem(id, t.signal);
  } catch (err) {
    if (err instanceof IntegrationError && err.kind === 'not_found') return;
    throw err;
  }
}

// ---- who gets whose playlists ------------------------------------------------------------------

export interface JellyfinPerson {
  userId: number;
  username: string;
  /** Their own Jellyfin user, or null: the default one. */
  jellyfinUserId: string | null;
  jellyfinUserName: string | null;
}

function savedClient(ctx: Deps): JellyfinClient {
  const o = ctx.settings.get().playback.jellyfin;
  if (!o.url || !o.apiKey) throw new NotConfiguredError('playback.jellyfin', 'Jellyfin is not configured: save its address and API key first');
  return clientOf(ctx.settings.get(), 10_000);
}

/** Jellyfin's users (asked with the saved connection), the default one and each Tonearm user's choice. */
export async function jellyfinPeople(ctx: Deps): Promise<{ users: JellyfinUser[]; defaultUserId: string | null; people: JellyfinPerson[] }> {
  const users = await savedClient(ctx).users();
  const saved = ctx.settings.get().playback.jellyfin.userId.replace(/-/g, '').toLowerCase();
  const fallback = users.find((u) => u.isAdministrator) ?? users[0];
  return { users, defaultUserId: saved || fallback?.id || null, people: peopleOf(ctx) };
}

function peopleOf(ctx: Deps): JellyfinPerson[] {
  const links = new Map(jellyfinUsers.all(ctx.db).map((l) => [l.userId, l]));
  return ctx.users.list().map((u) => {
    const link = links.get(u.id);
    return { userId: u.id, username: u.username, jellyfinUserId: link?.jellyfinUserId ?? null, jellyfinUserName: link?.jellyfinUserName ?? null };
  });
}

/** Gives a Tonearm user their own Jellyfin user (checked with Jellyfin), or back to the default one (null). */
export async function setJellyfinUser(ctx: Deps, userId: number, jellyfinUserId: string | null): Promise<JellyfinPerson> {
  if (!ctx.users.list().some((u) => u.id === userId)) throw new NotFoundError('User not found', `No user with id ${userId}`);
  if (jellyfinUserId === null) jellyfinUsers.clear(ctx.db, userId);
  else {
    const wanted = jellyfinUserId.replace(/-/g, '').toLowerCase();
    const user = (await savedClient(ctx).users()).find((u) => u.id.replace(/-/g, '').toLowerCase() === wanted);
    if (!user) throw new ValidationError(`Jellyfin has no user ${jellyfinUserId}`, 'VALIDATION_ERROR', [{ path: 'jellyfinUserId', message: 'is not a Jellyfin user' }]);
    jellyfinUsers.set(ctx.db, { userId, jellyfinUserId: wanted, jellyfinUserName: user.name }, ctx.clock.now());
  }
  return peopleOf(ctx).find((p) => p.userId === userId)!;
}

// ---- the destination --------------------------------------------------------------------------

/** Jellyfin (`playback.jellyfin`: its address, API key and what to publish), each owner's playlists under their Jellyfin user. */
export function jellyfinDestination(deps: DestinationDeps<Deps>): PlaybackDestination {
  const { ctx, repo } = deps;
  const connection = (settings: Settings): DestinationConnection => {
    const o = settings.playback.jellyfin;
    const configured = o.url !== '' && o.apiKey !== '';
    return {
      enabled: o.enabled,
      configured,
      publishing: o.enabled && configured,
      publishFlows: o.publishFlows,
      publishPlaylists: o.publishPlaylists,
      ownerPrefix: o.ownerPrefix,
      account: jellyfinAccount(o.url, o.userId),
      fingerprint: JSON.stringify([o.enabled && configured, o.url, o.apiKey, o.userId, o.publishFlows, o.publishPlaylists, o.ownerPrefix]),
    };
  };

  /**
   * Checks the server with the given (or saved) address and key: its info, its users (an
   * administrator's key lists them) and the playlists of the Jellyfin user they go to. The saved
   * key only goes to the saved address. A success with the saved connection makes waiting retries due now.
   */
  const test = async (input: DestinationTestInput): Promise<DestinationTestResult> => {
    const saved = ctx.settings.get().playback.jellyfin;
    const { url, secret: apiKey } = testConnection({
      setting: 'playback.jellyfin',
      field: 'apiKey',
      saved,
      body: input,
      notConfigured: 'Jellyfin is not configured: set its address and an API key (Jellyfin: Dashboard → API Keys)',
    });
    const client = new JellyfinClient({ baseUrl: url, apiKey, timeoutMs: 10_000 });
    const info = await client.systemInfo();
    const users = await client.users();
    const chosen = saved.userId.replace(/-/g, '').toLowerCase();
    const user = chosen ? users.find((u) => u.id.replace(/-/g, '').toLowerCase() === chosen) : (users.find((u) => u.isAdministrator) ?? users[0]);
    if (!user) {
      throw new NotFoundError('Jellyfin user not found', chosen ? `Jellyfin has no user ${saved.userId} any more: choose another in Settings → Playback` : 'Jellyfin lists no users');
    }
    const playlists = await client.playlists(user.id);
    const own = jellyfinUsers.all(ctx.db).length;
    if (connection(ctx.settings.get()).publishing && url === saved.url && apiKey === saved.apiKey) deps.retryNow('jellyfin');
    return {
      success: true,
      key: 'jellyfin',
      version: info.version,
      type: info.productName,
      serverVersion: info.version,
      authentication: 'token',
      playlists: playlists.length,
      canScan: true,
      message:
        `Connected to ${info.productName} ${info.version}${info.serverName ? ` (${info.serverName})` : ''}: playlists go to the Jellyfin user ${user.name}` +
        (own > 0 ? `, or to the own Jellyfin user of ${own} ${own === 1 ? 'person' : 'people'}` : ''),
    };
  };

  const target = async (account: string, signal: AbortSignal): Promise<JellyfinTarget> => {
    const settings = ctx.settings.get();
    const client = clientOf(settings);
    return { ctx, repo, client, account, userId: await userOf(client, account, signal), scanTimeoutMs: settings.playback.jellyfin.scanTimeoutSeconds * 1000, signal };
  };

  return {
    key: 'jellyfin',
    name: 'Jellyfin',
    connection,
    accountFor: (c, ownerUserId) => {
      const link = ownerUserId === null ? undefined : jellyfinUsers.get(ctx.db, ownerUserId);
      return link ? { account: jellyfinAccount(splitAccount(c.account).base, link.jellyfinUserId), own: true } : { account: c.account, own: false };
    },
    movable: (from, to) => splitAccount(from).base === splitAccount(to).base,
    publish: async (p) => publishToJellyfin(await target(p.account, p.signal), p),
    unpublish: async (p) => unpublishFromJellyfin({ ctx, repo, client: clientOf(ctx.settings.get()), account: p.account, signal: p.signal }, p.remoteId, p.marker),
    test,
  };
}
