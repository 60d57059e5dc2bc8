import { sortName } from '../../db/libraryText.js';
import type { SharedEntryRow } from '../../db/sharedPlaylists.js';
import { FetchFailedError, FetchRefusedError, guardedRequest } from '../../integrations/guardedFetch.js';
import { IntegrationError } from '../../integrations/errors.js';
import type { Principal } from '../auth/principal.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { allowedPrivateTargets, type Deps as NetworkPrivateTargetsDeps } from '../network/privateTargets.js';
import { parsePlaylist, type PlaylistFormat } from './formats.js';
import type { SharedHost } from './sharedTypes.js';
import type { Kernel } from '../../kernel.js';
import type { DownloadService } from '../downloads/service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'appVersion' | 'clock' | 'db' | 'jobs'>
  & {
    downloads: DownloadService;
  }
  & NetworkPrivateTargetsDeps;

/**
 * A shared playlist imported from a URL follows that source: fetching it through the address guard,
 * and syncing the list with what it holds now (sharedPlaylists.ts owns the lists themselves).
 */

const SOURCE_MAX_BYTES = 5 * 1024 * 1024;

export interface SyncResult {
  success: true;
  playlistId: string;
  added: number;
  removed: number;
  kept: number;
  total: number;
}

const keyOf = (t: { artistName: string; trackName: string }) => `${sortName(t.artistName)}\u0000${sortName(t.trackName)}`;

/** Reads the import source (public content: private addresses only when ALLOW_PRIVATE_TARGETS lists them). */
export async function fetchSource(ctx: Deps, url: string): Promise<string> {
  const timeoutMs = 15_000;
  try {
    const res = await guardedRequest({
      url,
      method: 'GET',
      headers: { Accept: 'application/json, audio/x-mpegurl, application/vnd.apple.mpegurl, text/plain;q=0.9, */*;q=0.5', 'User-Agent': `Tonearm/${ctx.appVersion}` },
      allowPrivateTargets: allowedPrivateTargets(ctx),
      redirects: 'any',
      timeoutMs,
      maxBytes: SOURCE_MAX_BYTES,
      signal: AbortSignal.timeout(timeoutMs * 2),
    });
    if (res.status < 200 || res.status >= 300) {
      res.abort();
      throw new IntegrationError('playlist-source', res.status === 404 || res.status === 410 ? 'not_found' : res.status >= 500 ? 'server_error' : 'bad_response', `The playlist source answered HTTP ${res.status}`, res.status);
    }
    const chunks: Buffer[] = [];
    for await (const c of res.body) chunks.push(c);
    return Buffer.concat(chunks).toString('utf8');
  } catch (err) {
    if (err instanceof IntegrationError) throw err;
    if (err instanceof FetchRefusedError) throw new IntegrationError('playlist-source', 'refused', err.message);
    if (err instanceof FetchFailedError && err.reason === 'too_large') throw new ValidationError(`The playlist source is larger than ${SOURCE_MAX_BYTES} bytes`);
    if (err instanceof FetchFailedError && err.reason === 'timeout') throw new IntegrationError('playlist-source', 'timeout', 'The playlist source did not answer in time');
    throw new IntegrationError('playlist-source', 'unreachable', `The playlist source could not be fetched (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

/**
 * Reads the import source again: tracks new there are added (downloaded when missing), tracks gone
 * from it are removed, or kept and marked when `keepRemovedTracks`. Tracks added by hand stay.
 * A failed fetch or a broken document changes nothing but `lastSyncError`.
 */
export async function syncFromSource(ctx: Deps, shared: SharedHost, id: string, principal?: Principal): Promise<SyncResult> {
  const row = principal ? shared.editable(id, principal) : shared.row(id);
  if (!row.source_url) throw new ValidationError('This shared playlist has no import source to sync from', 'SYNC_SOURCE_MISSING');
  let parsed;
  try {
    parsed = parsePlaylist(await fetchSource(ctx, row.source_url), (row.source_format as PlaylistFormat | null) ?? undefined);
  } catch (err) {
    shared.repo.update(row.seq, { last_sync_error: (err instanceof Error ? err.message : String(err)).slice(0, 500), last_synced_at: ctx.clock.now() }, row.updated_at);
    throw err;
  }
  const now = ctx.clock.now();
  const result = ctx.db.transaction(() => {
    const fresh = shared.repo.bySeq(row.seq);
    if (!fresh) throw new NotFoundError('Shared playlist not found');
    const entries = shared.repo.entries(row.seq);
    const fromSource = new Map<string, SharedEntryRow[]>();
    for (const e of entries) {
      if (e.from_source !== 1) continue;
      const k = keyOf({ artistName: e.artist_name, trackName: e.track_name });
      fromSource.set(k, [...(fromSource.get(k) ?? []), e]);
    }
    const order: number[] = [];
    let added = 0;
    for (const t of parsed.tracks) {
      const match = fromSource.get(keyOf(t))?.shift();
      if (match) {
        if (match.removed_from_source) shared.repo.markRemoved(match.id, false);
        order.push(match.id);
      } else {
        order.push(shared.addEntry(row.seq, row.id, row.owner_user_id, t, true, now, 1_000_000 + added).entryId);
        added++;
      }
    }
    let removed = 0;
    let kept = 0;
    const gone = new Set([...fromSource.values()].flat().map((e) => e.id));
    for (const e of entries) {
      if (!gone.has(e.id)) continue;
      if (fresh.keep_removed_tracks === 1) {
        shared.repo.markRemoved(e.id, true);
        kept++;
      } else {
        shared.repo.removeEntry(e.id);
        if (e.job_status === 'pending' && e.job_id !== null) {
          const j = ctx.downloads.transition(e.job_id, { status: 'cancelled', error: 'Removed from the playlist source' }, ['pending']);
          if (j?.queueJobId) ctx.jobs.cancel(j.queueJobId);
        }
        removed++;
      }
    }
    // Source order first, then what stays beyond it (kept and hand-added tracks) in their order.
    const inOrder = new Set(order);
    const rest = entries.filter((e) => !inOrder.has(e.id) && (!gone.has(e.id) || fresh.keep_removed_tracks === 1)).map((e) => e.id);
    [...order, ...rest].forEach((entryId, i) => shared.repo.setPosition(entryId, i));
    shared.repo.update(row.seq, { last_synced_at: now, last_sync_error: null }, now);
    return { added, removed, kept, total: order.length + rest.length };
  })();
  shared.announce(row.seq);
  return { success: true, playlistId: row.id, ...result };
}
