import { startJsonFake, type FakeReply, type JsonFake, type SeenRequest } from '../http.js';
import type { FakeArtist, FakeRelease, FakeReleaseGroup } from '../musicbrainz/index.js';

/**
 * A Lidarr-format metadata server (SkyHook resources, as brainzmash and api.lidarr.audio serve
 * them) on 127.0.0.1, built from the same catalogue as the MusicBrainz fake:
 * - `GET /artist/<mbid>`: the artist with `Albums[]` summaries (PascalCase inside, lower case outside);
 * - `GET /album/<release-group mbid>`: the album with its credited `artists[]` and `releases[]`, each
 *   with `media[]` and `tracks[]`;
 * - `GET /search/artist?query&limit`, `GET /search/album?query&limit[&artist]`, and Lidarr's own
 *   `GET /search?type=artist|album|all&query[&artist]`: plain arrays, best match first;
 * - 400 for a malformed id, 404 `{error}` for an unknown one; the shared faults (503, slow, down).
 */
export interface MetadataFake extends JsonFake {
  artists: Map<string, FakeArtist>;
  add(artist: FakeArtist): void;
}

const score = (name: string, wanted: string): number => {
  const n = name.toLowerCase();
  const w = wanted.trim().toLowerCase();
  if (!w) return 0;
  if (n === w) return 100;
  if (n.startsWith(w)) return 90;
  if (n.includes(w)) return 75;
  const words = w.split(/\s+/).filter(Boolean);
  const hits = words.filter((x) => n.includes(x)).length;
  return hits ? Math.round((hits / words.length) * 60) : 0;
};

export async function startMetadataFake(seed: FakeArtist[] = []): Promise<MetadataFake> {
  const artists = new Map<string, FakeArtist>();
  const groups = new Map<string, { group: FakeReleaseGroup; artist: FakeArtist }>();
  const add = (artist: FakeArtist) => {
    artists.set(artist.id, artist);
    for (const group of artist.releaseGroups) groups.set(group.id, { group, artist });
  };
  // The fake owns copies: a test changing an artist here must not change the shared fixture other files read.
  seed.forEach((artist) => add(structuredClone(artist)));

  const images = (id: string) => [{ CoverType: 'Poster', Url: `https://images.example/${id}.jpg` }];
  const ratingOf = (value: number | null | undefined) => (value == null ? { Count: 0, Value: null } : { Count: 4, Value: value * 2 });
  const summary = (g: FakeReleaseGroup) => ({
    Id: g.id,
    OldIds: [],
    Title: g.title,
    Type: g.primaryType,
    SecondaryTypes: g.secondaryTypes ?? [],
    ReleaseDate: g.firstReleaseDate ?? null,
    ReleaseStatuses: [...new Set(g.releases.map((r) => r.status ?? 'Official'))],
  });
  const artistJson = (a: FakeArtist, withAlbums = true) => ({
    id: a.id,
    oldids: [],
    artistname: a.name,
    sortname: a.sortName ?? a.name,
    artistaliases: [],
    disambiguation: a.disambiguation ?? '',
    overview: `${a.name} is a ${(a.type ?? 'group').toLowerCase()}${a.country ? ` from ${a.country}` : ''}.`,
    type: a.type ?? 'Group',
    status: 'active',
    genres: a.genres ?? a.tags ?? [],
    images: images(a.id),
    links: (a.urls ?? []).map((u) => ({ type: u.type, target: u.url })),
    rating: { Count: 0, Value: null },
    ...(withAlbums && { Albums: a.releaseGroups.map(summary) }),
  });
  const releaseJson = (r: FakeRelease, g: FakeReleaseGroup, a: FakeArtist) => ({
    id: r.id,
    oldids: [],
    title: r.title,
    status: r.status ?? 'Official',
    releasedate: r.date ?? g.firstReleaseDate ?? null,
    country: [r.country ?? 'XW'],
    label: [],
    disambiguation: '',
    media: [{ Format: 'Digital Media', Name: '', Position: 1 }],
    track_count: r.tracks.length,
    tracks: r.tracks.map((t, i) => ({
      id: t.id,
      oldids: [],
      recordingid: t.recordingId,
      oldrecordingids: [],
      trackname: t.title,
      tracknumber: String(i + 1),
      trackposition: i + 1,
      mediumnumber: 1,
      durationms: t.lengthMs,
      artistid: (t.artists ?? [a])[0]!.id,
    })),
  });
  const albumJson = (g: FakeReleaseGroup, a: FakeArtist) => {
    const credited = new Map<string, { id: string; name: string }>([[a.id, a]]);
    for (const r of g.releases) for (const t of r.tracks) for (const c of t.artists ?? []) credited.set(c.id, c);
    return {
      id: g.id,
      oldids: [],
      title: g.title,
      aliases: [],
      disambiguation: '',
      overview: '',
      type: g.primaryType,
      secondarytypes: g.secondaryTypes ?? [],
      releasedate: g.firstReleaseDate ?? null,
      artistid: a.id,
      artists: [...credited.values()].map((c) => {
        const known = artists.get(c.id);
        return known ? artistJson(known, false) : { id: c.id, oldids: [], artistname: c.name, sortname: c.name, artistaliases: [], genres: [], images: [], links: [] };
      }),
      genres: g.genres ?? [],
      images: images(g.id),
      links: [],
      rating: ratingOf(g.rating),
      releases: g.releases.map((r) => releaseJson(r, g, a)),
    };
  };

  const searchArtists = (query: string, limit: number) =>
    [...artists.values()]
      .map((a) => ({ a, s: score(a.name, query) }))
      .filter((h) => h.s > 0)
      .sort((x, y) => y.s - x.s || x.a.name.localeCompare(y.a.name))
      .slice(0, limit);
  const searchAlbums = (query: string, limit: number, artist: string | null) =>
    [...groups.values()]
      .map(({ group, artist: a }) => ({ group, a, s: Math.min(score(group.title, query), artist ? score(a.name, artist) : 100) }))
      .filter((h) => h.s > 0)
      .sort((x, y) => y.s - x.s || x.group.title.localeCompare(y.group.title))
      .slice(0, limit);
  const limitOf = (q: URLSearchParams) => Math.min(100, Math.max(1, Number(q.get('limit') ?? 10) || 10));

  function route(req: SeenRequest): FakeReply {
    if (req.method !== 'GET') return { status: 405, body: { error: 'Method not allowed' } };
    const q = req.query;
    const lookup = /^\/(artist|album)\/([^/]+)$/.exec(req.path);
    if (lookup) {
      const [, entity, id] = lookup;
      if (!/^[0-9a-f-]{36}$/i.test(id!)) return { status: 400, body: { error: 'Invalid id' } };
      if (entity === 'artist') {
        const a = artists.get(id!.toLowerCase());
        return a ? { body: artistJson(a) } : { status: 404, body: { error: 'Artist not found' } };
      }
      const g = groups.get(id!.toLowerCase());
      return g ? { body: albumJson(g.group, g.artist) } : { status: 404, body: { error: 'Album not found' } };
    }
    const searchType = req.path === '/search' ? q.get('type') : /^\/search\/(artist|album)$/.exec(req.path)?.[1];
    if (searchType) {
      const query = q.get('query');
      if (!query) return { status: 400, body: { error: 'query is required' } };
      if (searchType === 'artist') return { body: searchArtists(query, limitOf(q)).map((h) => artistJson(h.a)) };
      if (searchType === 'album') return { body: searchAlbums(query, limitOf(q), q.get('artist')).map((h) => albumJson(h.group, h.a)) };
      if (searchType === 'all')
        return {
          body: [
            ...searchArtists(query, limitOf(q)).map((h) => ({ score: h.s, artist: artistJson(h.a), album: null })),
            ...searchAlbums(query, limitOf(q), null).map((h) => ({ score: h.s, artist: null, album: albumJson(h.group, h.a) })),
          ].sort((x, y) => y.score - x.score),
        };
      return { status: 400, body: { error: `Unknown search type ${searchType}` } };
    }
    return { status: 404, body: { error: 'Not Found' } };
  }

  const fake = (await startJsonFake(route)) as MetadataFake;
  fake.artists = artists;
  fake.add = add;
  return fake;
}
