import type { Mix } from '../../db/flows.js';

/** The flow templates of reference §3.8: all 20 tracks, no deep dive, Fridays at midnight. */
export interface FlowTemplate {
  id: string;
  name: string;
  description: string;
  mix: Mix;
  /** The flow's default onePerArtist (at most one track per artist). */
  onePerArtist?: boolean;
  /** Related artists come from the user's listening history. */
  fromHistory?: boolean;
}

const mix = (m: Partial<Mix>): Mix => ({ discover: 0, mix: 0, trending: 0, focus: 0, ...m });

export const FLOW_TEMPLATES: FlowTemplate[] = [
  { id: 'discover-weekly', name: 'Discover Weekly', description: 'New artists picked from your taste, every week', mix: mix({ discover: 100 }) },
  { id: 'trending-mix', name: 'Trending Mix', description: 'What everyone is listening to right now', mix: mix({ trending: 100 }) },
  { id: 'library-blend', name: 'Library Blend', description: 'Tracks you do not have yet by the artists in your library', mix: mix({ mix: 100 }) },
  {
    id: 'focus-listening-history',
    name: 'Listening History',
    description: 'More from the artists you have been listening to lately',
    mix: mix({ focus: 100 }),
    fromHistory: true,
  },
  {
    id: 'release-radar',
    name: 'Release Radar',
    description: 'Tracks of the recent albums you do not have yet, by artists close to your taste and in your library',
    mix: mix({ discover: 100 }),
    // One track per recent album, so an artist with several new albums has several (onePerArtist: one per artist).
    onePerArtist: false,
  },
];

export const TEMPLATE_DEFAULTS = { size: 20, deepDive: false, scheduleDays: [5], scheduleTime: '00:00' };
