import type { PlaybackRepository } from '../../db/playback.js';
import type { Settings } from '../settings/schema.js';


/** The types a playback destination (subsonic.ts, plex.ts, jellyfin.ts) shares with the service that drives it (service.ts). */

export interface DestinationStatus {
  key: string;
  name: string;
  enabled: boolean;
  configured: boolean;
  publishFlows: boolean;
  publishPlaylists: boolean;
  published: number;
  pending: number;
  lastPublishedAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
}

export type DestinationKey = 'navidrome' | 'plex' | 'jellyfin';

/** What the service needs to know about a destination under some settings. */
export interface DestinationConnection {
  enabled: boolean;
  configured: boolean;
  /** Enabled and configured: changes are published. */
  publishing: boolean;
  publishFlows: boolean;
  publishPlaylists: boolean;
  ownerPrefix: 'auto' | 'always' | 'never';
  /** Who remote ids belong to (address and user, or server and library): another one starts afresh. */
  account: string;
  /** Changes whenever anything that decides what is published there changes. */
  fingerprint: string;
}

export interface DestinationPublish {
  account: string;
  name: string;
  /** `Tonearm <kind>:<id>`: marks our playlist there. */
  marker: string;
  trackIds: number[];
  /** The remote id stored for this playlist (same account), or null. */
  remoteId: string | null;
  /** Called as soon as the remote id is known. */
  recordRemote: (remoteId: string) => void;
  signal: AbortSignal;
}

/** One playback destination: its connection, and publishing and unpublishing one playlist there. */
export interface PlaybackDestination {
  key: DestinationKey;
  name: string;
  connection(settings: Settings): DestinationConnection;
  /** Makes the remote playlist hold the matched tracks in order; remoteId null when there was nothing to create yet. */
  publish(p: DestinationPublish): Promise<{ remoteId: string | null; trackCount: number; matchedCount: number }>;
  unpublish(p: { account: string; remoteId: string | null; marker: string; signal: AbortSignal }): Promise<void>;
  /**
   * The account a playlist of this owner is published under, and whether it is the owner's own
   * (their own playlist there: no owner prefix). Without it, every playlist goes to the connection's
   * account, named with the owner prefix.
   */
  accountFor?(c: DestinationConnection, ownerUserId: number | null): { account: string; own: boolean };
  /**
   * A publication on account `from` moves to `to` (same server, another identity): the playlist is
   * deleted under the old identity, then made under the new. Without it, another account starts afresh.
   */
  movable?(from: string, to: string): boolean;
  /** A publication left an account (moved away, or taken down): what was kept for it may go. */
  released?(account: string): void;
  /** Checks the connection (the given values or the saved ones); a success with the saved connection makes waiting retries due now. */
  test(input: DestinationTestInput): Promise<DestinationTestResult>;
}

export interface DestinationTestInput {
  url?: string;
  username?: string;
  password?: string;
  /** Jellyfin's API key. */
  apiKey?: string;
}

export interface DestinationTestResult {
  success: true;
  key: string;
  version: string;
  type: string | null;
  serverVersion: string | null;
  authentication: 'token' | 'password';
  playlists: number;
  canScan: boolean;
  message: string;
}

/** What a destination is made with: `ctx` is what it uses of the server's context. */
export interface DestinationDeps<D> {
  ctx: D;
  repo: PlaybackRepository;
  /** The destination answers again: waiting publications go now. */
  retryNow(key: DestinationKey): void;
}
