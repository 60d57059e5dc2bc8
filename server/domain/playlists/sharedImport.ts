import { randomUUID } from 'node:crypto';
import { requests } from '../../db/requests.js';
import { isUserAccount, type Principal } from '../auth/principal.js';
import { ForbiddenError, ValidationError } from '../errors.js';
import { checkImportQueue, type Deps as ImportsQuotaDeps } from '../imports/quota.js';
import { parsePlaylist, type PlaylistFormat } from './formats.js';
import { viewerOf } from './registry.js';
import type { NewEntry, SharedHost, SharedSettings } from './sharedTypes.js';
import { fetchSource, type Deps as PlaylistsSharedSyncDeps } from './sharedSync.js';
import type { Kernel } from '../../kernel.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'db'> & ImportsQuotaDeps & PlaylistsSharedSyncDeps;

/**
 * Creating a shared playlist: from tracks sent or from an imported document or URL (parsed by
 * formats.ts, fetched by sharedSync.ts), with the checks of its name and settings that changing
 * one uses too. Entries and their jobs are added by SharedPlaylists.addEntry.
 */

const DEFAULT_SYNC_HOURS = 24;

export function checkSettings(s: SharedSettings, sourceUrl: string | null): void {
  if (s.syncEnabled && !sourceUrl) throw new ValidationError('Sync needs the URL of an import source (sourceUrl)', 'SYNC_SOURCE_MISSING');
  if (sourceUrl !== null) {
    let u: URL;
    try {
      u = new URL(sourceUrl);
    } catch {
      throw new ValidationError('sourceUrl must be an http(s) URL');
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ValidationError('sourceUrl must be an http(s) URL');
  }
}

export function checkName(repo: SharedHost['repo'], name: string, exceptId?: string): string {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > 200) throw new ValidationError('Shared playlist name must be 1-200 characters');
  const other = repo.idOfName(trimmed);
  if (other !== undefined && other !== exceptId) throw new ValidationError('Shared playlist name already exists', 'SHARED_PLAYLIST_NAME_CONFLICT');
  return trimmed;
}

/** Creates the playlist with its tracks in one transaction; jobs for missing tracks start after it. */
export function createShared<S extends SharedHost>(
  ctx: Deps,
  shared: S,
  principal: Principal,
  settings: SharedSettings & { name: string },
  tracks: NewEntry[] = [],
  source?: { url: string | null; format: PlaylistFormat | null },
): ReturnType<S['present']> {
  if (!isUserAccount(principal)) throw new ForbiddenError('User account required', 'Forbidden', 'USER_REQUIRED');
  const name = checkName(shared.repo, settings.name);
  const sourceUrl = source?.url ?? settings.sourceUrl ?? null;
  checkSettings(settings, sourceUrl);
  // Every track the library lacks becomes a download job: within the person's import queue limit.
  const missing = tracks.filter((t) => t.trackId == null && requests.ownedTrackId(ctx.db, { mbid: t.recordingMbid, title: t.trackName, artistName: t.artistName }) === undefined);
  checkImportQueue(ctx, principal.userId, missing.length);
  const now = ctx.clock.now();
  const id = randomUUID();
  const seq = ctx.db.transaction(() => {
    const seq = shared.repo.insert({
      id,
      ownerUserId: principal.userId,
      name,
      description: (settings.description ?? '').trim().slice(0, 2000),
      sourceUrl,
      sourceFormat: source?.format ?? null,
      syncEnabled: settings.syncEnabled ?? false,
      syncIntervalHours: settings.syncIntervalHours ?? DEFAULT_SYNC_HOURS,
      keepRemovedTracks: settings.keepRemovedTracks ?? false,
      now,
    });
    for (const t of tracks) shared.addEntry(seq, id, principal.userId, t, source !== undefined && source.url !== null, now, t.position);
    if (source?.url) shared.repo.update(seq, { last_synced_at: now }, now);
    return seq;
  })();
  shared.announce(seq);
  return shared.present(shared.repo.bySeq(seq)!, viewerOf(principal), true) as ReturnType<S['present']>;
}

/** Import: a document (text or JSON) or a URL fetched through the address guard. */
export async function importShared<S extends SharedHost>(
  ctx: Deps,
  shared: S,
  principal: Principal,
  input: SharedSettings & { content?: unknown; url?: string; format?: PlaylistFormat },
) {
  if (input.content === undefined && !input.url) throw new ValidationError('Send the playlist as content, or its url');
  let parsed;
  if (input.content !== undefined) parsed = parsePlaylist(input.content, input.format);
  else {
    checkSettings({}, input.url!);
    parsed = parsePlaylist(await fetchSource(ctx, input.url!), input.format);
  }
  const name = input.name ?? parsed.name;
  if (!name) throw new ValidationError('The playlist has no name: send one (name)');
  const url = input.url ?? input.sourceUrl ?? null;
  return createShared(
    ctx,
    shared,
    principal,
    { ...input, name, description: input.description ?? parsed.description ?? '' },
    parsed.tracks,
    { url, format: input.format ?? parsed.format },
  );
}
