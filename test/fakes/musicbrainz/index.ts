import { page, startJsonFake, type FakeReply, type JsonFake, type SeenRequest } from '../http.js';

/**
 * MusicBrainz WS/2 on 127.0.0.1: artist, release-group, release, recording lookups; artist, release-group and
 * recording searches with scores and paging; release-group browse by artist; the User-Agent rule;
 * optionally the 1 request/s rule answered with 503 like the real service.
 */
export interface FakeTrack {
  id: string;
  recordingId: string;
  title: string;
  lengthMs: number;
  /** The recording's ISRC, found by `isrc:` searches. */
  isrc?: string;
  /** Credited artists of this track when they differ from the release's (features, compilations). */
  artists?: { id: string; name: string }[];
}
export interface FakeRelease {
  id: string;
  title: string;
  status?: string;
  date?: string;
  country?: string;
  tracks: FakeTrack[];
}
export interface FakeReleaseGroup {
  id: string;
  title: string;
  primaryType: string;
  secondaryTypes?: string[];
  firstReleaseDate?: string;
  genres?: string[];
  rating?: number | null;
  releases: FakeRelease[];
}
export interface FakeArtist {
  id: string;
  name: string;
  sortName?: string;
  type?: string;
  country?: string;
  disambiguation?: string;
  tags?: string[];
  genres?: string[];
  urls?: { type: string; url: string }[];
  releaseGroups: FakeReleaseGroup[];
}

export interface MusicBrainzFake extends JsonFake {
  artists: Map<string, FakeArtist>;
  add(artist: FakeArtist): void;
  /** Answer 503 to a request that follows the previous one by less than this (0 = off). */
  minSpacingMs: number;
}

const credit = (artists: { id: string; name: string }[]) =>
  artists.map((a, i) => ({ name: a.name, joinphrase: i < artists.length - 1 ? ' & ' : '', artist: { id: a.id, name: a.name, 'sort-name': a.name } }));

function scoreOf(name: string, wanted: string): number {
  const n = name.toLowerCase();
  const w = wanted.toLowerCase();
  if (!w) return 0;
  if (n === w) return 100;
  if (n.startsWith(w)) return 90;
  if (n.includes(w)) return 75;
  const words = w.split(/\s+/).filter(Boolean);
  const hits = words.filter((x) => n.includes(x)).length;
  return hits ? Math.round((hits / words.length) * 60) : 0;
}

/**
 * Release-type filters: `primarytype:"album"` alternatives (ORed) and `NOT secondarytype:"live"`
 * exclusions, as a client narrows a release-group search.
 */
function parseTypeFilters(q: string): { rest: string; primary: string[]; excluded: string[] } {
  const primary: string[] = [];
  const excluded: string[] = [];
  const rest = q.replace(/(NOT\s+)?(primarytype|secondarytype):(?:"((?:[^"\\]|\\.)*)"|(\S+?))(?=[\s)]|$)/gi, (_m, not: string | undefined, key: string, quoted?: string, bare?: string) => {
    const value = (quoted ?? bare ?? '').replace(/\\(.)/g, '$1').toLowerCase();
    if (key.toLowerCase() === 'primarytype' && !not) primary.push(value);
    if (key.toLowerCase() === 'secondarytype' && not) excluded.push(value);
    return ' ';
  });
  return { rest: rest.replace(/[()]/g, ' ').replace(/\b(AND|OR|NOT)\b(\s+\b(AND|OR|NOT)\b)*\s*$/g, '').trim(), primary, excluded };
}

/** The few Lucene forms clients send: `field:"value"` pairs joined by AND, or bare text. */
function parseLucene(q: string): { fields: Record<string, string>; text: string } {
  const fields: Record<string, string> = {};
  const rest = q.replace(/(\w+):(?:"((?:[^"\\]|\\.)*)"|(\S+))/g, (_m, key: string, quoted?: string, bare?: string) => {
    fields[key.toLowerCase()] = (quoted ?? bare ?? '').replace(/\\(.)/g, '$1');
    return ' ';
  });
  return { fields, text: rest.replace(/\bAND\b|\bOR\b/g, ' ').replace(/^"|"$/g, '').replace(/\\(.)/g, '$1').trim() };
}

/** Splits a query at its top-level ` OR ` (outside quotes and parentheses). */
function splitOr(q: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < q.length; i++) {
    const ch = q[i];
    if (ch === '\\') i++;
    else if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === '(') depth++;
    else if (!quoted && ch === ')') depth--;
    else if (!quoted && depth === 0 && q.startsWith(' OR ', i)) {
      parts.push(q.slice(start, i).trim());
      start = i + 4;
      i += 3;
    }
  }
  parts.push(q.slice(start).trim());
  return parts.filter(Boolean);
}

export async function startMusicBrainzFake(seed: FakeArtist[] = []): Promise<MusicBrainzFake> {
  const artists = new Map<string, FakeArtist>();
  const groups = new Map<string, { group: FakeReleaseGroup; artist: FakeArtist }>();
  const releases = new Map<string, { release: FakeRelease; group: FakeReleaseGroup; artist: FakeArtist }>();
  let last = 0;
  const add = (artist: FakeArtist) => {
    artists.set(artist.id, artist);
    for (const group of artist.releaseGroups) {
      groups.set(group.id, { group, artist });
      for (const release of group.releases) releases.set(release.id, { release, group, artist });
    }
  };
  // The fake owns copies: a test changing an artist here must not change the shared fixture other files read.
  seed.forEach((artist) => add(structuredClone(artist)));
  type Placed = { release: FakeRelease; group: FakeReleaseGroup; artist: FakeArtist; t: FakeTrack };
  let placed: { size: number; all: Placed[]; byIsrc: Map<string, Placed[]> } | null = null;
  const index = () => {
    if (placed && placed.size === releases.size) return placed;
    const all: Placed[] = [];
    const byIsrc = new Map<string, Placed[]>();
    for (const { release, group, artist } of releases.values())
      for (const t of release.tracks) {
        const p = { release, group, artist, t };
        all.push(p);
        if (t.isrc) byIsrc.set(t.isrc.toUpperCase(), [...(byIsrc.get(t.isrc.toUpperCase()) ?? []), p]);
      }
    return (placed = { size: releases.size, all, byIsrc });
  };
  const allTracks = () => index().all;
  const isrcIndex = () => index().byIsrc;

  const groupJson = (group: FakeReleaseGroup, artist: FakeArtist, extra: Record<string, unknown> = {}) => ({
    id: group.id,
    title: group.title,
    'primary-type': group.primaryType,
    'secondary-types': group.secondaryTypes ?? [],
    'first-release-date': group.firstReleaseDate ?? '',
    'artist-credit': credit([artist]),
    ...extra,
  });
  const releaseJson = (release: FakeRelease, group: FakeReleaseGroup, artist: FakeArtist, withMedia: boolean) => ({
    id: release.id,
    title: release.title,
    status: release.status ?? 'Official',
    date: release.date ?? group.firstReleaseDate ?? '',
    country: release.country ?? 'XW',
    'artist-credit': credit([artist]),
    'release-group': groupJson(group, artist),
    ...(withMedia && {
      media: [
        {
          position: 1,
          format: 'Digital Media',
          'track-count': release.tracks.length,
          tracks: release.tracks.map((t, i) => ({
            id: t.id,
            number: String(i + 1),
            position: i + 1,
            title: t.title,
            length: t.lengthMs,
            recording: { id: t.recordingId, title: t.title, length: t.lengthMs },
            'artist-credit': credit(t.artists ?? [artist]),
          })),
        },
      ],
    }),
  });
  const artistJson = (a: FakeArtist, extra: Record<string, unknown> = {}) => ({
    id: a.id,
    name: a.name,
    'sort-name': a.sortName ?? a.name,
    type: a.type ?? 'Group',
    country: a.country ?? null,
    disambiguation: a.disambiguation ?? '',
    'life-span': { begin: null, end: null, ended: false },
    tags: (a.tags ?? []).map((name, i) => ({ name, count: 10 - i })),
    genres: (a.genres ?? []).map((name, i) => ({ name, count: 10 - i, id: `genre-${name}` })),
    relations: (a.urls ?? []).map((u) => ({ type: u.type, url: { resource: u.url } })),
    ...extra,
  });

  const notFound: FakeReply = { status: 404, body: { error: 'Not Found', help: 'For usage, please see: https://musicbrainz.org/development/mmd' } };

  function route(req: SeenRequest): FakeReply {
    const q = req.query;
    const lookup = /^\/(artist|release-group|release|recording)\/([^/]+)$/.exec(req.path);
    if (lookup) {
      const [, entity, id] = lookup;
      if (!/^[0-9a-f-]{36}$/i.test(id!)) return { status: 400, body: { error: 'Invalid mbid.', help: '' } };
      if (entity === 'artist') {
        const a = artists.get(id!);
        return a ? { body: artistJson(a) } : notFound;
      }
      if (entity === 'release-group') {
        const g = groups.get(id!);
        if (!g) return notFound;
        return {
          body: groupJson(g.group, g.artist, {
            releases: g.group.releases.map((r) => ({ id: r.id, title: r.title, status: r.status ?? 'Official', date: r.date ?? '', country: r.country ?? 'XW' })),
            genres: (g.group.genres ?? []).map((name) => ({ name, count: 3 })),
            tags: (g.group.genres ?? []).map((name) => ({ name, count: 3 })),
            rating: { value: g.group.rating ?? null, 'votes-count': g.group.rating == null ? 0 : 4 },
          }),
        };
      }
      if (entity === 'release') {
        const r = releases.get(id!);
        return r ? { body: releaseJson(r.release, r.group, r.artist, true) } : notFound;
      }
      const rec = allTracks().find((p) => p.t.recordingId === id);
      return rec
        ? { body: { id: rec.t.recordingId, title: rec.t.title, length: rec.t.lengthMs, video: false, disambiguation: '', 'artist-credit': credit(rec.t.artists ?? [rec.artist]) } }
        : notFound;
    }
    const query = q.get('query') ?? '';
    const types = parseTypeFilters(query);
    const { fields, text } = parseLucene(types.rest);
    if (req.path === '/artist') {
      const wanted = fields.artist ?? text;
      const tag = fields.tag?.toLowerCase();
      const hits = [...artists.values()]
        .map((a) => ({ a, score: tag !== undefined ? ((a.tags ?? []).some((t) => t.toLowerCase() === tag) ? 100 : 0) : scoreOf(a.name, wanted) }))
        .filter((h) => h.score > 0)
        .sort((x, y) => y.score - x.score || x.a.name.localeCompare(y.a.name));
      const p = page(hits, q, 25, 100);
      return { body: { created: new Date().toISOString(), count: p.count, offset: p.offset, artists: p.items.map((h) => artistJson(h.a, { score: h.score })) } };
    }
    if (req.path === '/release-group') {
      const byArtist = q.get('artist');
      if (byArtist && !query) {
        const a = artists.get(byArtist);
        if (!a) return notFound;
        const p = page(a.releaseGroups, q, 25, 100);
        return { body: { 'release-group-count': p.count, 'release-group-offset': p.offset, 'release-groups': p.items.map((g) => groupJson(g, a)) } };
      }
      const title = fields.releasegroup ?? fields.release ?? text;
      const artistName = fields.artist;
      const hits = [...groups.values()]
        .map(({ group, artist }) => ({ group, artist, score: Math.min(scoreOf(group.title, title), artistName ? scoreOf(artist.name, artistName) || 0 : 100) }))
        .filter((h) => h.score > 0 && (!fields.arid || h.artist.id === fields.arid))
        .filter((h) => types.primary.length === 0 || types.primary.includes(h.group.primaryType.toLowerCase()))
        .filter((h) => !(h.group.secondaryTypes ?? []).some((t) => types.excluded.includes(t.toLowerCase())))
        .sort((x, y) => y.score - x.score || x.group.title.localeCompare(y.group.title));
      const p = page(hits, q, 25, 100);
      return { body: { created: new Date().toISOString(), count: p.count, offset: p.offset, 'release-groups': p.items.map((h) => groupJson(h.group, h.artist, { score: h.score })) } };
    }
    if (req.path === '/recording') {
      // Batched searches: `clause OR clause …`, each clause a parenthesised AND of fields (or one field).
      const clauses = splitOr(types.rest).map((c) => parseLucene(c.replace(/^\((.*)\)$/s, '$1')));
      const recs: (Placed & { score: number })[] = [];
      const seen = new Set<string>();
      for (const { fields, text } of clauses) {
        const arid = fields.arid;
        // An ISRC clause reads the index instead of every track.
        const scope = fields.isrc ? (isrcIndex().get(fields.isrc.toUpperCase()) ?? []) : allTracks();
        for (const hit of scope) {
          const { release, artist, t } = hit;
          const credited = t.artists ?? [artist];
          if (arid && !credited.some((c) => c.id === arid)) continue;
          if (fields.rid && t.recordingId !== fields.rid) continue;
          if (fields.isrc && t.isrc?.toUpperCase() !== fields.isrc.toUpperCase()) continue;
          if (!arid && !fields.rid && !fields.isrc && scoreOf(t.title, fields.recording ?? text) === 0) continue;
          if (fields.artist && !credited.some((c) => scoreOf(c.name, fields.artist!) > 0)) continue;
          if (fields.release && scoreOf(release.title, fields.release) === 0) continue;
          if (seen.has(`${t.recordingId}|${release.id}`)) continue;
          seen.add(`${t.recordingId}|${release.id}`);
          recs.push({ ...hit, score: fields.recording ? scoreOf(t.title, fields.recording) : 100 });
        }
      }
      // Best score first, as MusicBrainz orders its answers.
      recs.sort((a, b) => b.score - a.score);
      const p = page(recs, q, 25, 100);
      const recordings = p.items.map(({ release, group, artist, t, score }) => ({
        id: t.recordingId, title: t.title, length: t.lengthMs, score, ...(t.isrc && { isrcs: [t.isrc] }),
        'artist-credit': credit(t.artists ?? [artist]), releases: [releaseJson(release, group, artist, false)],
      }));
      return { body: { created: new Date().toISOString(), count: p.count, offset: p.offset, recordings } };
    }
    return notFound;
  }

  const fake = (await startJsonFake((req) => {
    const ua = String(req.headers['user-agent'] ?? '');
    // MusicBrainz's rule: Application/Version ( contact ).
    if (!/^\S+\/\S+ \(.+\)$/.test(ua)) return { status: 403, body: { error: 'Anonymous user agents are not allowed; send Application/Version ( contact )' } };
    const now = Date.now();
    const tooSoon = fake.minSpacingMs > 0 && now - last < fake.minSpacingMs;
    last = now;
    if (tooSoon) return { status: 503, body: { error: 'Your requests are exceeding the allowable rate limit. Please see http://wiki.musicbrainz.org/XMLWebService for more information.' } };
    return route(req);
  }, '/ws/2')) as MusicBrainzFake;
  fake.artists = artists;
  fake.add = add;
  fake.minSpacingMs = 0;
  return fake;
}
