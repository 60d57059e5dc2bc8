import crypto from 'node:crypto';
import { flows, type FlowRow } from '../../db/flows.js';
import { feedRows, libraryArtistMbidLookup } from '../../db/flowQueries.js';
import { nameKey } from '../../db/libraryText.js';
import type { Kernel } from '../../kernel.js';
import type { DiscoveryService } from '../discovery/service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'db'> & { discovery: DiscoveryService };

/** One artist of Lidarr's Custom List import list. */
export interface FeedItem {
  MusicBrainzId: string;
  ArtistName: string;
  Albums: { Title: string; MusicBrainzId: string | null }[];
}

/** The per-flow token (created on first use), the feed's path and its item count. */
export function importListOf(ctx: Deps, f: FlowRow) {
  let token = f.feedToken;
  if (!token) {
    token = crypto.randomBytes(24).toString('hex');
    flows.setState(ctx.db, f.id, { feedToken: token }, ctx.clock.now());
  }
  const items = feedItems(ctx, f);
  const path = `/api/feeds/lidarr/flows/${encodeURIComponent(f.id)}.json?token=${token}`;
  return { success: true, flowId: f.id, token, path, url: path, itemCount: items.length };
}

/** The feed, or undefined when the flow or the token is wrong (the route answers 401 either way). */
export function feedOf(ctx: Deps, flowId: string, token: string | undefined): FeedItem[] | undefined {
  const f = flows.get(ctx.db, flowId);
  if (!f || !f.feedToken || !token) return undefined;
  const a = Buffer.from(f.feedToken);
  const b = Buffer.from(token);
  if (a.length !== b.length || !crypto.timingSafeEqual(a, b)) return undefined;
  return feedItems(ctx, f);
}

/**
 * Lidarr's Custom List: one item per artist of the flow's current run that has a MusicBrainz id
 * (`MusicBrainzId`, what Lidarr reads), with the artist's name and the flow's albums of it.
 */
export function feedItems(ctx: Deps, f: FlowRow): FeedItem[] {
  if (f.currentRunId === null) return [];
  const rows = feedRows(ctx.db, f.currentRunId);
  const byMbid = libraryArtistMbidLookup(ctx.db);
  const recs = new Map(ctx.discovery.repo.allRecommendations(f.ownerUserId ?? -1).filter((r) => r.mbid).map((r) => [r.name_key, r.mbid!]));
  const out = new Map<string, FeedItem>();
  for (const r of rows) {
    const key = nameKey(r.artistName);
    const mbid = r.artistMbid ?? r.jobArtistMbid ?? recs.get(key) ?? byMbid(`name:${key}`);
    if (!mbid) continue;
    let item = out.get(mbid);
    if (!item) out.set(mbid, (item = { MusicBrainzId: mbid, ArtistName: r.artistName, Albums: [] }));
    if (r.albumName && !item.Albums.some((a) => a.Title === r.albumName)) item.Albums.push({ Title: r.albumName, MusicBrainzId: r.albumMbid });
  }
  return [...out.values()];
}
