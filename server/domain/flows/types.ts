import type { FlowRow } from '../../db/flows.js';

/** Types shared by the flow planner (planner.ts) and its helpers (releaseRadar.ts). */

export type Artist = { name: string; mbid: string | null };

export interface TopTrack {
  name: string;
  mbid: string | null;
  albumName: string | null;
  durationMs: number | null;
  year: number | null;
}

/** What a plan needs of a flow. */
export type PlanInput = Pick<
  FlowRow,
  'size' | 'mix' | 'tags' | 'relatedArtists' | 'deepDive' | 'includeLibraryTracks' | 'onePerArtist' | 'yearFrom' | 'yearTo'
> & { ownerUserId: number; id?: string; templateId?: string | null };
