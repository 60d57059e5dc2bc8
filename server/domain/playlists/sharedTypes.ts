import type { DownloadJobRow } from '../../db/downloads.js';
import type { SharedPlaylistRow, SharedPlaylistsRepository } from '../../db/sharedPlaylists.js';
import type { Principal } from '../auth/principal.js';
import type { PlaylistEntry } from './formats.js';
import type { PlaylistViewer } from './registry.js';

/** Types the shared playlists service (sharedPlaylists.ts) shares with its helpers (sharedImport.ts, sharedSync.ts). */

export interface SharedSettings {
  name?: string;
  description?: string;
  sourceUrl?: string | null;
  syncEnabled?: boolean;
  syncIntervalHours?: number;
  keepRemovedTracks?: boolean;
}

/** A track to add: `trackId` names the library track when the caller already matched it; `position` places it. */
export type NewEntry = PlaylistEntry & { trackId?: number | null; position?: number };

/** What creating, importing and syncing use of the shared playlists service (SharedPlaylists implements it). */
export interface SharedHost {
  readonly repo: SharedPlaylistsRepository;
  present(row: SharedPlaylistRow, viewer: PlaylistViewer | null, withTracks?: boolean): unknown;
  row(id: string): SharedPlaylistRow;
  editable(id: string, principal: Principal): SharedPlaylistRow;
  announce(seq: number): void;
  addEntry(
    seq: number,
    id: string,
    ownerId: number | null,
    entry: NewEntry,
    fromSource: boolean,
    now: number,
    position?: number,
    priority?: number,
  ): { entryId: number; job: DownloadJobRow };
}
