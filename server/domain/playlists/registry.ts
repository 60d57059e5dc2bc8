import type { Principal } from '../auth/principal.js';
import { playlistsRepository, type PlaylistRow } from '../../db/playlists.js';

import type { PlaylistKind } from '../../db/playlistArtwork.js';
import type { Kernel } from '../../kernel.js';
import type { Logger } from '../../log.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'db' | 'log'>;

/** The kinds of playlist a user can have: their own static lists, flows, and shared playlists. */
export type { PlaylistKind };

/**
 * One playlist of any kind, as every consumer (artwork, /rest, playback destinations, status) sees it.
 * `id` is the id on the JSON API: a static playlist's integer id as a string, a flow's or shared
 * playlist's UUID. `restNumber` is the number behind its Subsonic `pl-` id (see `restNumberOf`).
 */
export interface PlaylistRef {
  kind: PlaylistKind;
  id: string;
  restNumber: number;
  name: string;
  comment: string;
  ownerUserId: number | null;
  owner: string;
  /** Everyone may read it (public static playlists, shared playlists). */
  public: boolean;
  createdAt: number;
  updatedAt: number;
  songCount: number;
  durationMs: number;
  firstTrackId: number | null;
}

/** Who is asking; admins may see every playlist. */
export interface PlaylistViewer {
  id: number;
  role: string;
}

/** The viewer a signed-in principal is. */
export const viewerOf = (p: Principal): PlaylistViewer => ({ id: p.userId, role: p.role });

/** What a kind of playlist tells the registry; each kind registers one provider. */
export interface PlaylistProvider {
  kind: PlaylistKind;
  /** The playlists this user may see, in display order. */
  visibleTo(viewer: PlaylistViewer): PlaylistRef[];
  /** A playlist by its API id, whoever may see it; undefined when the id is not of this kind. */
  find(id: string): PlaylistRef | undefined;
  /** A playlist by the number behind its `pl-` id. */
  findByRestNumber(n: number): PlaylistRef | undefined;
  /** May this viewer read it? */
  canSee(ref: PlaylistRef, viewer: PlaylistViewer): boolean;
  /** May this viewer change its tracks, name or artwork? */
  canEdit(ref: PlaylistRef, viewer: PlaylistViewer): boolean;
  /** The library track ids in playlist order; tracks not in the library (yet) are left out. */
  trackIds(id: string): number[];
}

export type PlaylistChange = { type: 'changed'; ref: PlaylistRef } | { type: 'deleted'; ref: PlaylistRef };

/**
 * /rest `pl-` numbers: static playlists keep their row id (those ids are released and frozen);
 * flows and shared playlists sit above 2^48, with the kind in the lowest bit of their `seq`, so every
 * kind has its own stable numbers that never meet.
 */
const KIND_BASE = 2 ** 48;
const KIND_BIT: Record<Exclude<PlaylistKind, 'static'>, number> = { flow: 0, shared: 1 };

export function restNumberOf(kind: PlaylistKind, seq: number): number {
  if (kind === 'static') return seq;
  return KIND_BASE + seq * 2 + KIND_BIT[kind];
}

/** The kind and `seq` (row id) behind a `pl-` number. */
export function parseRestNumber(n: number): { kind: PlaylistKind; seq: number } {
  if (n < KIND_BASE) return { kind: 'static', seq: n };
  const rest = n - KIND_BASE;
  return { kind: rest % 2 === 1 ? 'shared' : 'flow', seq: Math.floor(rest / 2) };
}

/**
 * Every kind of playlist behind one interface. Kinds register a provider at startup and report each
 * change with `changed`/`deleted` after it is committed; listeners (artwork, playback destinations,
 * status pushes) hear about every kind the same way.
 */
export class PlaylistRegistry {
  private readonly providers = new Map<PlaylistKind, PlaylistProvider>();
  private readonly listeners = new Set<(change: PlaylistChange) => void>();

  constructor(private readonly log?: Logger) {}

  register(provider: PlaylistProvider): void {
    this.providers.set(provider.kind, provider);
  }

  provider(kind: PlaylistKind): PlaylistProvider | undefined {
    return this.providers.get(kind);
  }

  /** Every playlist the viewer may see, static first, then flows, then shared. */
  visibleTo(viewer: PlaylistViewer): PlaylistRef[] {
    return [...this.providers.values()].flatMap((p) => p.visibleTo(viewer));
  }

  /** A playlist by API id (any kind), whoever may see it. */
  find(id: string): PlaylistRef | undefined {
    for (const p of this.providers.values()) {
      const ref = p.find(id);
      if (ref) return ref;
    }
    return undefined;
  }

  /** A playlist by API id if the viewer may see it. */
  findFor(id: string, viewer: PlaylistViewer): PlaylistRef | undefined {
    const ref = this.find(id);
    return ref && this.canSee(ref, viewer) ? ref : undefined;
  }

  findByRestNumber(n: number): PlaylistRef | undefined {
    return this.providers.get(parseRestNumber(n).kind)?.findByRestNumber(n);
  }

  canSee(ref: PlaylistRef, viewer: PlaylistViewer): boolean {
    return this.providers.get(ref.kind)?.canSee(ref, viewer) ?? false;
  }

  canEdit(ref: PlaylistRef, viewer: PlaylistViewer): boolean {
    return this.providers.get(ref.kind)?.canEdit(ref, viewer) ?? false;
  }

  trackIds(ref: PlaylistRef): number[] {
    return this.providers.get(ref.kind)?.trackIds(ref.id) ?? [];
  }

  /** Listen to every committed change; returns the unsubscribe function. */
  onChange(listener: (change: PlaylistChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(ref: PlaylistRef): void {
    this.emit({ type: 'changed', ref });
  }

  deleted(ref: PlaylistRef): void {
    this.emit({ type: 'deleted', ref });
  }

  private emit(change: PlaylistChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (err) {
        this.log?.warn('playlist listener failed', { err: String(err), playlist: change.ref.id });
      }
    }
  }
}

export function staticRef(row: PlaylistRow): PlaylistRef {
  return {
    kind: 'static',
    id: String(row.id),
    restNumber: restNumberOf('static', row.id),
    name: row.name,
    comment: row.comment,
    ownerUserId: row.user_id,
    owner: row.owner,
    public: row.public === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    songCount: row.song_count,
    durationMs: row.duration_ms,
    firstTrackId: row.first_track_id,
  };
}

/** The user's own static playlists; public ones are readable by everyone, editable by the owner. */
function staticProvider(ctx: Deps): PlaylistProvider {
  const repo = playlistsRepository(ctx.db);
  const byNumber = (n: number) => {
    const row = Number.isSafeInteger(n) && n > 0 && n < KIND_BASE ? repo.byId(n) : undefined;
    return row && staticRef(row);
  };
  return {
    kind: 'static',
    visibleTo: (viewer) => repo.visibleTo(viewer.id).map(staticRef),
    find: (id) => (/^[1-9][0-9]{0,14}$/.test(id) ? byNumber(Number(id)) : undefined),
    findByRestNumber: byNumber,
    canSee: (ref, viewer) => ref.public || ref.ownerUserId === viewer.id,
    canEdit: (ref, viewer) => ref.ownerUserId === viewer.id,
    trackIds: (id) => repo.trackIds(Number(id)),
  };
}

/** The one playlist registry of a running server (built by server/wiring.ts; static playlists registered from the start). */
export function createPlaylistRegistry(ctx: Deps): PlaylistRegistry {
  const r = new PlaylistRegistry(ctx.log);
  r.register(staticProvider(ctx));
  return r;
}

