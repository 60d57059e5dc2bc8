import { randomBytes } from 'node:crypto';
import { playlistsRepository } from '../../db/playlists.js';
import { sharesRepository, type ShareRow, type SharesRepository, type ShareTarget } from '../../db/shares.js';
import { SubsonicIds } from '../../db/subsonicIds.js';
import { SubsonicLibrary } from '../../db/subsonicLibrary.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { StaticPlaylists } from '../playlists/staticPlaylists.js';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'db'> & { settings: SettingsStore };

export const SHARING_OFF = 'Sharing is turned off on this server; an administrator can turn it on in the settings (sharing.enabled)';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const SHARE_ID_LENGTH = 22; // ~131 random bits
const MAX_TARGETS = 500;
/** A share plays at most this many tracks (an artist with a huge catalogue stays a bounded page). */
export const MAX_SHARE_TRACKS = 1000;

/** A random base-62 id, unguessable and in practice never repeated. */
export function newShareId(): string {
  let out = '';
  while (out.length < SHARE_ID_LENGTH) {
    for (const b of randomBytes(32)) {
      // 248 = 4 × 62: rejecting the rest keeps every character equally likely.
      if (b < 248 && out.length < SHARE_ID_LENGTH) out += ALPHABET[b % 62];
    }
  }
  return out;
}

export interface ShareUser {
  id: number;
  role: 'admin' | 'user';
}

export interface ShareChanges {
  description?: string | undefined;
  /** Milliseconds since the epoch; null removes the expiry. */
  expiresAt?: number | null | undefined;
}

/** A share as a visitor finds it: open, or past its expiry. Unknown ids and sharing off are null. */
export type OpenedShare = { state: 'open'; share: ShareRow } | { state: 'expired'; share: ShareRow } | null;

/**
 * Public share links (Subsonic 1.6 shares): a user shares tracks, albums, artists or playlists
 * they can read; anyone with the link plays them until the share expires. Off unless the
 * `sharing.enabled` setting is on; the owner or an administrator manages a share.
 */
export class Shares {
  constructor(
    private readonly deps: {
      repo: SharesRepository;
      library: SubsonicLibrary;
      ids: SubsonicIds;
      playlists: StaticPlaylists;
      clock: { now(): number };
      enabled: () => boolean;
    },
  ) {}

  get enabled(): boolean {
    return this.deps.enabled();
  }

  create(user: ShareUser, targets: ShareTarget[], changes: ShareChanges = {}): ShareRow {
    this.requireEnabled();
    if (targets.length === 0) throw new ValidationError('Nothing to share: give at least one id');
    if (targets.length > MAX_TARGETS) throw new ValidationError(`At most ${MAX_TARGETS} ids can be shared at once`);
    // Only what the user can read: a playlist must be theirs or public.
    for (const t of targets) if (t.kind === 'playlist') this.deps.playlists.get(user.id, t.id);
    const id = newShareId();
    const fields = this.validate(changes);
    this.deps.repo.create({ id, userId: user.id, description: fields.description ?? '', expiresAt: fields.expiresAt ?? null }, targets, this.deps.clock.now());
    return this.deps.repo.byId(id)!;
  }

  /** The user's shares; an administrator sees everyone's. */
  list(user: ShareUser): ShareRow[] {
    this.requireEnabled();
    return user.role === 'admin' ? this.deps.repo.all() : this.deps.repo.ofUser(user.id);
  }

  update(user: ShareUser, id: string, changes: ShareChanges): void {
    const share = this.managed(user, id);
    const fields = this.validate(changes);
    this.deps.repo.update(
      id,
      fields.description ?? share.description,
      fields.expiresAt === undefined ? share.expires_at : fields.expiresAt,
    );
  }

  delete(user: ShareUser, id: string): void {
    this.managed(user, id);
    this.deps.repo.remove(id);
  }

  /** A share for a visitor (no login): null when sharing is off or the id is unknown. */
  open(id: string): OpenedShare {
    if (!this.enabled || id.length !== SHARE_ID_LENGTH) return null;
    const share = this.deps.repo.byId(id);
    if (!share) return null;
    if (share.expires_at !== null && share.expires_at <= this.deps.clock.now()) return { state: 'expired', share };
    return { state: 'open', share };
  }

  visit(share: ShareRow): void {
    this.deps.repo.visit(share.id, this.deps.clock.now());
  }

  /** The library tracks a share plays, in order, without repeats; resolved now, so an album share follows its album. */
  trackIds(share: ShareRow): number[] {
    const lib = this.deps.library;
    const out: number[] = [];
    const seen = new Set<number>();
    for (const t of this.deps.repo.targets(share.id)) {
      let ids: number[];
      if (t.kind === 'playlist') ids = this.playlistTracks(share.user_id, t.id);
      else {
        // An entry gone from the library (pruned) contributes nothing.
        const row = this.deps.ids.resolve(t.kind, t.key);
        if (row === undefined) ids = [];
        else if (t.kind === 'track') ids = [row];
        else if (t.kind === 'album') ids = lib.songIdsOfAlbum(row);
        else ids = lib.albumIdsOfArtist(row).flatMap((a) => lib.songIdsOfAlbum(a));
      }
      for (const id of ids) {
        if (seen.has(id)) continue;
        seen.add(id);
        out.push(id);
        if (out.length >= MAX_SHARE_TRACKS) return out;
      }
    }
    return out;
  }

  /** A playlist the sharer can no longer read (deleted, made private) contributes nothing. */
  private playlistTracks(userId: number, playlistId: number): number[] {
    try {
      return this.deps.playlists.get(userId, playlistId).trackIds;
    } catch (err) {
      if (err instanceof NotFoundError) return [];
      throw err;
    }
  }

  private managed(user: ShareUser, id: string): ShareRow {
    this.requireEnabled();
    const share = this.deps.repo.byId(id);
    if (!share || (share.user_id !== user.id && user.role !== 'admin')) throw new NotFoundError('Share not found');
    return share;
  }

  requireEnabled(): void {
    if (!this.enabled) throw new ForbiddenError(SHARING_OFF, 'Forbidden', 'SHARING_DISABLED');
  }

  private validate(changes: ShareChanges): ShareChanges {
    if (changes.description !== undefined && changes.description.length > 1000) throw new ValidationError('description must be at most 1000 characters');
    if (changes.expiresAt !== undefined && changes.expiresAt !== null && changes.expiresAt <= this.deps.clock.now())
      throw new ValidationError('expires must be in the future (milliseconds since 1970), or 0 for no expiry');
    return changes;
  }
}

/** One share service per server (built by server/wiring.ts), used by /rest and the public /share pages. */
export function createShares(ctx: Deps): Shares {
  return new Shares({
      repo: sharesRepository(ctx.db),
      library: new SubsonicLibrary(ctx.db),
      ids: new SubsonicIds(ctx.db),
      playlists: new StaticPlaylists(playlistsRepository(ctx.db), ctx.clock),
      clock: ctx.clock,
      enabled: () => ctx.settings.get().sharing.enabled,
  });
}

