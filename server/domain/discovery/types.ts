import type { DiscoveryRepository, RankingRow } from '../../db/discovery.js';
import type { CallBudget } from './callBudget.js';

import type { Kernel } from '../../kernel.js';
import type { UsersService } from '../users/service.js';
import type { DiscoveryProviders } from './providers.js';

/** What a refresh uses of the server's context (through its host's `ctx`). */
export type RefreshDeps = Pick<Kernel, 'db' | 'clock' | 'log'> & { users: UsersService; discoveryProviders: DiscoveryProviders };

/** Types the discovery service (service.ts) shares with its refresh (refresh.ts). */

export type DiscoveryProviderName = 'lastfm' | 'listenbrainz';

/** Where a refresh stands, for health and `discovery_update`. */
export interface DiscoveryProgress {
  userId: number | null;
  isUpdating: boolean;
  updatePhase: string | null;
  updateProgress: number | null;
  updateProgressMessage: string | null;
}

export interface Preferences {
  excludedTags: string[];
  excludedArtists: string[];
  deepDive: boolean;
}

/** Library artists as name keys and MBIDs, for "in library" and the exclusions. */
export interface LibraryIndex {
  keys: Set<string>;
  mbids: Set<string>;
  has(name: string, mbid: string | null): boolean;
}

export type SimilarList = { name: string; mbid: string | null; match: number; image: string | null }[];

/** What a refresh uses of the discovery service (DiscoveryService implements it). */
export interface RefreshHost {
  readonly ctx: RefreshDeps;
  readonly repo: DiscoveryRepository;
  image(url: string | null): string | null;
  provider(): DiscoveryProviderName;
  report(userId: number, p: Omit<DiscoveryProgress, 'userId'>): void;
  libraryIndex(): LibraryIndex;
  preferences(userId: number): Preferences;
  similarOf(a: { name: string; mbid: string | null }, budget: CallBudget | null, signal?: AbortSignal): Promise<SimilarList | null>;
  tagsOf(name: string, budget: CallBudget, signal?: AbortSignal): Promise<string[] | null>;
  tagArtists(tag: string, budget: CallBudget | null, signal?: AbortSignal, force?: boolean, libraryIndex?: LibraryIndex): Promise<RankingRow[]>;
}
