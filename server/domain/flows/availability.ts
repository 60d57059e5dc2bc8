/** Which flow sources and templates can be used now, and why not (the templates themselves are in templates.ts). */
import { MIX_SOURCES, type MixSource } from '../../db/flows.js';
import { mostPlayedArtistNames } from '../../db/flowQueries.js';
import { nameKey } from '../../db/libraryText.js';
import { isUserAccount, type Principal } from '../auth/principal.js';
import { capabilitiesOf, type DiscoveryService } from '../discovery/service.js';
import { FLOW_TEMPLATES, TEMPLATE_DEFAULTS, type FlowTemplate } from './templates.js';
import type { Kernel } from '../../kernel.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'db'> & { discovery: DiscoveryService };

const SOURCE_LABELS: Record<MixSource, string> = { discover: 'Discover', mix: 'Library Blend', trending: 'Trending', focus: 'Focus' };

/** Which sources can be used now, and why not. */
export function sourceAvailability(ctx: Deps): Record<MixSource, string | null> {
  const provider = ctx.discovery.provider();
  const caps = capabilitiesOf(provider).flows;
  const reason = (s: MixSource) => (caps[s] ? null : `${SOURCE_LABELS[s]} needs Last.fm: set integrations.lastfm.apiKey in Settings`);
  return { discover: reason('discover'), mix: reason('mix'), trending: reason('trending'), focus: reason('focus') };
}

/** Up to three artists from the user's listening history that are not in the library. */
export function historyArtists(ctx: Deps, userId: number): string[] {
  const discovery = ctx.discovery;
  const inLibrary = discovery.inLibraryNow();
  const out = new Map<string, string>();
  const add = (name: string, mbid: string | null) => {
    if (out.size < 3 && !out.has(nameKey(name)) && !inLibrary(name, mbid)) out.set(nameKey(name), name);
  };
  for (const s of discovery.repo.seeds(userId)) if (s.source !== 'library') add(s.name, s.mbid);
  const played = mostPlayedArtistNames(ctx.db, userId);
  for (const p of played) add(p.name, p.mbid);
  return [...out.values()];
}

/** Why the user cannot start a flow from this template now, or null. */
export function templateUnavailable(ctx: Deps, t: FlowTemplate, userId: number): string | null {
  const avail = sourceAvailability(ctx);
  for (const s of MIX_SOURCES) if (t.mix[s] > 0 && avail[s]) return avail[s];
  if (t.fromHistory && historyArtists(ctx, userId).length === 0)
    return 'Listening History needs listening history: connect a scrobbling account in your profile or play some music first';
  return null;
}

/** GET /flows/templates: every template with whether the principal can use it. */
export function templatesFor(ctx: Deps, principal: Principal) {
  return {
    templates: FLOW_TEMPLATES.map((t) => {
      const reason = isUserAccount(principal) ? templateUnavailable(ctx, t, principal.userId) : 'Flow ownership requires a real user';
      return { id: t.id, name: t.name, description: t.description, mix: t.mix, size: TEMPLATE_DEFAULTS.size, available: reason === null, reason };
    }),
  };
}
