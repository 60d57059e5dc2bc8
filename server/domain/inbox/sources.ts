import { discoveryRepository, userScope } from '../../db/discovery.js';
import type { ArtistArticleRow, InboxCandidate, InboxRepository } from '../../db/inbox.js';
import { nameKey } from '../../db/libraryText.js';
import type { Kernel } from '../../kernel.js';
import type { NearbyShows } from '../discovery/nearbyShows.js';
import type { DiscoveryService } from '../discovery/service.js';
import type { NewsService } from '../news/service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'db'> & { discovery: DiscoveryService; nearbyShows: NearbyShows; news: NewsService };

/**
 * What each inbox category finds for a user, from data other areas already keep: release groups of
 * library artists (the metadata cache), nearby shows (Ticketmaster, cached per place), stored news
 * articles (no NewsAPI request is made for the inbox) and the user's cached recommendations.
 */

const DAY = 86_400_000;
/** Releases from this far back count as recent; upcoming ones up to a year ahead. */
export const RELEASES_PAST_DAYS = 90;
export const RELEASES_AHEAD_DAYS = 365;
/** At most this many release items per refresh (the newest). */
export const MAX_RELEASES = 5000;
/** News digests cover articles of the last two weeks, one item per artist and week. */
export const NEWS_DAYS = 14;
const MAX_ARTICLES = 5000;
const DIGEST_ARTICLES = 5;
/** The user's best recommendations that become items, and how long one stays after a refresh stops finding it. */
export const DISCOVERIES_PER_REFRESH = 20;
const DISCOVERY_KEEP_MS = 30 * DAY;
const SHOW_KEEP_AFTER_MS = DAY;

const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);
/** Lets requests in between the slices of a long read (the refresh must not stall HTTP). */
export const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));
/** Releases are read a month of dates at a time, news a day at a time. */
const RELEASE_SLICE_DAYS = 30;

/** `2026`, `2026-11` or `2026-11-20` as the first moment it can mean (UTC). */
export function dateOf(partial: string): number | null {
  const m = /^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?/.exec(partial);
  if (!m) return null;
  const t = Date.UTC(Number(m[1]), m[2] ? Number(m[2]) - 1 : 0, m[3] ? Number(m[3]) : 1);
  return Number.isFinite(t) ? t : null;
}

/** The Monday (UTC) of the week `t` falls in, as YYYY-MM-DD. */
export function weekOf(t: number): string {
  const d = new Date(t);
  const monday = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - ((d.getUTCDay() + 6) % 7) * DAY;
  return isoDay(monday);
}

/** Recent and upcoming release groups of library artists that the library lacks, newest first. */
export async function releaseCandidates(repo: InboxRepository, now: number): Promise<InboxCandidate[]> {
  const rows = [];
  const first = now - RELEASES_PAST_DAYS * DAY;
  // Exclusive upper bound: the day after the last one (a year-only date such as "2027" sorts before "2027-01-01").
  for (let until = now + (RELEASES_AHEAD_DAYS + 1) * DAY; until > first && rows.length < MAX_RELEASES; until -= RELEASE_SLICE_DAYS * DAY) {
    const since = Math.max(first, until - RELEASE_SLICE_DAYS * DAY);
    rows.push(...repo.releases(isoDay(since), isoDay(until), MAX_RELEASES - rows.length));
    await breathe();
  }
  const seen = new Set<string>();
  const out: InboxCandidate[] = [];
  for (const r of rows) {
    if (seen.has(r.mbid)) continue; // a collaboration listed under two library artists is one item
    seen.add(r.mbid);
    const at = dateOf(r.first_release_date);
    const upcoming = at !== null && at > now;
    const secondary = JSON.parse(r.secondary_types) as string[];
    const type = [r.primary_type ?? 'Release', ...secondary].join(' · ');
    out.push({
      kind: 'release',
      sourceKey: r.mbid,
      title: r.title,
      subtitle: `${r.artist_name} · ${type} · ${upcoming ? 'out ' : ''}${r.first_release_date}`,
      href: `/release/${r.mbid}`,
      imageUrl: null,
      metadata: {
        releaseGroupMbid: r.mbid,
        artistMbid: r.artist_mbid,
        artistName: r.artist_name,
        libraryArtistId: r.library_artist_id,
        primaryType: r.primary_type,
        secondaryTypes: secondary,
        releaseDate: r.first_release_date,
        upcoming,
      },
      itemAt: at,
      expiresAt: at === null ? null : at + RELEASES_PAST_DAYS * DAY,
    });
  }
  return out;
}

/** Shows near the server's place by library artists or the user's recommended artists; a warning (and no items) when they could not be read. */
export async function showCandidates(ctx: Deps, userId: number, now: number): Promise<{ items: InboxCandidate[]; warning: string | null }> {
  let answer;
  try {
    answer = await ctx.nearbyShows.find({ limit: 200 });
  } catch (err) {
    return { items: [], warning: `Nearby shows could not be read: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}` };
  }
  if (!answer.configured) return { items: [], warning: null };
  // No place found this time (a geolocation service down): keep the shows found before.
  if (!answer.location) return { items: [], warning: answer.message ?? 'Nearby shows: no location' };
  const recommended = new Set(discoveryRepository(ctx.db).allRecommendations(userId).map((r) => r.name_key));
  const out: InboxCandidate[] = [];
  for (const show of answer.shows) {
    const forUser = show.inLibrary || show.artists.some((a) => recommended.has(nameKey(a.name)));
    if (!forUser) continue;
    const at = show.dateTime ? Date.parse(show.dateTime) : show.date ? dateOf(show.date) : null;
    if (at !== null && at + SHOW_KEEP_AFTER_MS < now) continue;
    const where = show.venue ? [show.venue.name, show.venue.city].filter(Boolean).join(', ') : null;
    out.push({
      kind: 'show',
      sourceKey: show.id,
      title: show.name,
      subtitle: [show.date, where].filter(Boolean).join(' · ') || null,
      href: show.url,
      imageUrl: show.imageUrl,
      metadata: {
        eventId: show.id,
        date: show.date,
        time: show.time,
        dateTime: show.dateTime,
        venue: show.venue,
        distance: show.distance,
        units: show.units,
        inLibrary: show.inLibrary,
        artists: show.artists.map((a) => ({ name: a.name, mbid: a.mbid, libraryArtistId: a.libraryArtistId })),
      },
      itemAt: at,
      expiresAt: at === null ? now + DISCOVERY_KEEP_MS : at + SHOW_KEEP_AFTER_MS,
    });
  }
  return { items: out, warning: null };
}

/** One digest per library artist and week, from the stored articles (without the user's blocked publishers). */
export async function newsCandidates(ctx: Deps, repo: InboxRepository, userId: number, now: number): Promise<InboxCandidate[]> {
  const blocked = new Set(ctx.news.blockedPublishers(userId).map((p) => p.toLowerCase()));
  const rows: ArtistArticleRow[] = [];
  for (let until = now + DAY, d = 0; d <= NEWS_DAYS && rows.length < MAX_ARTICLES; d++, until -= DAY) {
    for (const r of repo.artistArticles(Math.max(now - NEWS_DAYS * DAY, until - DAY), until, MAX_ARTICLES - rows.length)) if (!blocked.has(r.publisher.toLowerCase())) rows.push(r);
    await breathe();
  }
  const groups = new Map<string, typeof rows>();
  for (const r of rows) {
    const key = `${r.artist_id}:${weekOf(r.published_at)}`;
    const list = groups.get(key) ?? [];
    list.push(r);
    groups.set(key, list);
  }
  const out: InboxCandidate[] = [];
  for (const [key, list] of groups) {
    const newest = list[0]!; // rows come newest first
    const more = list.length - 1;
    out.push({
      kind: 'news',
      sourceKey: key,
      title: `News about ${newest.artist_name}`,
      subtitle: more > 0 ? `${newest.title} (and ${more} more)` : newest.title,
      href: newest.url,
      imageUrl: list.find((a) => a.image_proxy_url)?.image_proxy_url ?? null,
      metadata: {
        artistId: newest.artist_id,
        artistName: newest.artist_name,
        week: key.slice(key.indexOf(':') + 1),
        articleCount: list.length,
        articles: list.slice(0, DIGEST_ARTICLES).map((a) => ({ id: a.id, title: a.title, url: a.url, source: a.publisher, publishedAt: new Date(a.published_at).toISOString() })),
      },
      itemAt: newest.published_at,
      expiresAt: newest.published_at + NEWS_DAYS * DAY,
    });
  }
  return out;
}

/** The user's best cached recommendations that are not in the library now. */
export function discoveryCandidates(ctx: Deps, userId: number, now: number): InboxCandidate[] {
  const discovery = ctx.discovery;
  const inLibrary = discovery.inLibraryNow();
  const updated = discovery.repo.state(userScope(userId))?.last_updated ?? now;
  const out: InboxCandidate[] = [];
  for (const r of discovery.repo.recommendations(userId, DISCOVERIES_PER_REFRESH * 2, 0)) {
    if (out.length >= DISCOVERIES_PER_REFRESH) break;
    if (inLibrary(r.name, r.mbid)) continue;
    const seeds = JSON.parse(r.seeds_json) as string[];
    const tags = JSON.parse(r.tags_json) as string[];
    out.push({
      kind: 'discovery',
      sourceKey: r.name_key,
      title: r.name,
      subtitle: seeds.length ? `Because you like ${seeds.slice(0, 3).join(', ')}` : tags.length ? tags.slice(0, 3).join(', ') : 'Recommended for you',
      href: r.mbid ? `/artist/${r.mbid}` : null,
      imageUrl: r.image,
      metadata: { artistName: r.name, artistMbid: r.mbid, rank: r.rank, score: r.score, basedOn: seeds, tags, source: r.source },
      // Rank order within one refresh: the best recommendation is the newest.
      itemAt: updated - r.rank,
      expiresAt: now + DISCOVERY_KEEP_MS,
    });
  }
  return out;
}
