import { playlistsRepository, type PlaylistRow, type PlaylistsRepository } from '../../db/playlists.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { type PlaylistRegistry, staticRef } from './registry.js';
import type { Kernel } from '../../kernel.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'db'> & { playlists: PlaylistRegistry };

export interface PlaylistChanges {
  name?: string;
  comment?: string;
  public?: boolean;
  /** Positions in the current list to drop (applied before additions). */
  removeIndexes?: number[];
  addTrackIds?: number[];
  /** Replaces the whole list. */
  trackIds?: number[];
}

/** The static playlists of a running server, as the domain's own features (flows) make them. */
export function staticPlaylistsOf(ctx: Deps): StaticPlaylists {
  return new StaticPlaylists(playlistsRepository(ctx.db), ctx.clock, ctx.playlists);
}

/**
 * The user's static playlists: owners edit, everyone sees public ones read-only. Used by /rest and
 * by /api/playlists, so both show the same lists.
 */
export class StaticPlaylists {
  constructor(
    private readonly repo: PlaylistsRepository,
    private readonly clock: { now(): number },
    /** Told about every committed change, so artwork, /rest and playback destinations follow. */
    private readonly registry?: PlaylistRegistry,
    /**
     * The library, when callers send raw track ids (/api): every id added must be a library track.
     * /rest resolves its ids to library tracks before they get here.
     */
    private readonly library?: { tracksByIds(ids: number[]): { id: number }[] },
  ) {}

  /** Every id must be a library track: a list of unknown ids would show up empty. */
  private requireLibraryTracks(ids: number[] | undefined): void {
    if (!this.library || !ids?.length) return;
    const unique = [...new Set(ids)];
    const found = new Set(this.library.tracksByIds(unique).map((t) => t.id));
    const missing = unique.filter((id) => !found.has(id));
    if (missing.length) throw new ValidationError(`Unknown track ids: ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', …' : ''}`);
  }

  private announce(id: number): void {
    const row = this.registry && this.repo.byId(id);
    if (row) this.registry?.changed(staticRef(row));
  }

  visibleTo(userId: number): PlaylistRow[] {
    return this.repo.visibleTo(userId);
  }

  /** A playlist the user may read (own or public), with its track ids in order. */
  get(userId: number, id: number): { playlist: PlaylistRow; trackIds: number[] } {
    const playlist = this.repo.byId(id);
    if (!playlist || (playlist.user_id !== userId && playlist.public !== 1)) throw new NotFoundError('Playlist not found');
    return { playlist, trackIds: this.repo.trackIds(id) };
  }

  create(userId: number, name: string, trackIds: number[], options: { comment?: string; public?: boolean } = {}): number {
    this.requireLibraryTracks(trackIds);
    const trimmed = name.trim();
    if (trimmed === '' || trimmed.length > 200) throw new ValidationError('Playlist name must be 1-200 characters');
    const id = this.repo.create(userId, trimmed, options.comment ?? '', options.public ?? false, trackIds, this.clock.now());
    this.announce(id);
    return id;
  }

  update(userId: number, id: number, changes: PlaylistChanges): void {
    this.requireLibraryTracks(changes.addTrackIds);
    this.requireLibraryTracks(changes.trackIds);
    const { playlist } = this.get(userId, id);
    if (playlist.user_id !== userId) throw new ForbiddenError('Only the owner can change this playlist');
    if (changes.name !== undefined && (changes.name.trim() === '' || changes.name.length > 200))
      throw new ValidationError('Playlist name must be 1-200 characters');
    let trackIds = changes.trackIds;
    if (changes.removeIndexes?.length || changes.addTrackIds?.length) {
      const drop = new Set(changes.removeIndexes ?? []);
      trackIds = (trackIds ?? this.repo.trackIds(id)).filter((_, i) => !drop.has(i)).concat(changes.addTrackIds ?? []);
    }
    this.repo.update(
      id,
      {
        ...(changes.name !== undefined && { name: changes.name.trim() }),
        ...(changes.comment !== undefined && { comment: changes.comment }),
        ...(changes.public !== undefined && { public: changes.public }),
        ...(trackIds && { trackIds }),
      },
      this.clock.now(),
    );
    this.announce(id);
  }

  delete(userId: number, id: number): void {
    const { playlist } = this.get(userId, id);
    if (playlist.user_id !== userId) throw new ForbiddenError('Only the owner can delete this playlist');
    this.repo.remove(id);
    this.registry?.deleted(staticRef(playlist));
  }
}
