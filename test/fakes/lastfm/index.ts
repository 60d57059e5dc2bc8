import { startJsonFake, type FakeReply, type JsonFake, type SeenRequest } from '../http.js';

/**
 * Last.fm's read API on 127.0.0.1 (`GET /2.0/?method=…&api_key=…&format=json`) with its quirks:
 * every number is a string, a list of one entry is that entry (an object), missing MBIDs are "",
 * and errors are `{error, message}`, sometimes with HTTP 200 (not found: error 6 with 200, as
 * Last.fm does; a wrong key: error 10 with 403). Methods: artist.getInfo, artist.getTopTags,
 * artist.getSimilar, artist.getTopTracks (paged by `page`/`limit`), and album.getInfo (by artist and
 * album name, with `autocorrect` ignoring case; `wiki` only for albums someone wrote about, its
 * summary ending in Last.fm's "Read more on Last.fm" link).
 */
export interface FakeLastFmAlbum {
  name: string;
  /** Last.fm's album MBIDs are release ids. */
  mbid?: string;
  /** The wiki text; none: the answer has no `wiki`. */
  wiki?: string;
  tags?: string[];
  tracks?: { name: string; duration: number }[];
}
export interface FakeLastFmArtist {
  name: string;
  mbid?: string;
  bio?: string;
  listeners?: number;
  tags?: string[];
  similar?: { name: string; mbid?: string; match: number }[];
  topTracks?: { name: string; mbid?: string; playcount: number }[];
  albums?: FakeLastFmAlbum[];
}

export interface LastFmFake extends JsonFake {
  apiKey: string;
  artists: Map<string, FakeLastFmArtist>;
  add(artist: FakeLastFmArtist): void;
  /** The next `count` answers are `{error: code}` with this HTTP status (Last.fm sends 29 and 16 with 200 too). */
  errorNext(count: number, code: number, status?: number): void;
}

const one = <T>(list: T[]): T | T[] => (list.length === 1 ? list[0]! : list);
const images = (name: string) => ['small', 'medium', 'large', 'extralarge', 'mega'].map((size) => ({ '#text': '', size, _for: name })).map(({ _for: _, ...i }) => i);

export async function startLastFmFake(seed: FakeLastFmArtist[] = [], apiKey = 'lastfm-test-key'): Promise<LastFmFake> {
  const artists = new Map<string, FakeLastFmArtist>();
  const errors: { code: number; status: number }[] = [];
  const error = (code: number, message: string, status = 200): FakeReply => ({ status, body: { error: code, message, links: [] } });

  const albumInfo = (q: URLSearchParams): FakeReply => {
    if (!q.get('mbid') && (!q.get('artist') || !q.get('album'))) return error(6, 'Invalid parameters - Your request is missing a required parameter', 400);
    let found: { a: FakeLastFmArtist; album: FakeLastFmAlbum } | undefined;
    for (const a of artists.values())
      for (const album of a.albums ?? [])
        if (q.get('mbid') ? album.mbid === q.get('mbid') : a.name.toLowerCase() === q.get('artist')!.toLowerCase() && album.name.toLowerCase() === q.get('album')!.toLowerCase()) found ??= { a, album };
    if (!found) return error(6, 'Album not found');
    const { a, album } = found;
    const url = `https://www.last.fm/music/${encodeURIComponent(a.name)}/${encodeURIComponent(album.name)}`;
    const tracks = (album.tracks ?? []).map((t, i) => ({
      streamable: { fulltrack: '0', '#text': '0' },
      duration: t.duration,
      url: `${url}/_/${encodeURIComponent(t.name)}`,
      name: t.name,
      '@attr': { rank: i + 1 },
      artist: { url: '', name: a.name, mbid: a.mbid ?? '' },
    }));
    return {
      body: {
        album: {
          artist: a.name,
          mbid: album.mbid ?? '',
          tags: (album.tags ?? []).length ? { tag: one((album.tags ?? []).map((t) => ({ url: `https://www.last.fm/tag/${encodeURIComponent(t)}`, name: t }))) } : '',
          name: album.name,
          image: images(album.name),
          tracks: tracks.length ? { track: one(tracks) } : '',
          listeners: '4321',
          playcount: '54321',
          url,
          ...(album.wiki && {
            wiki: { published: '01 Jan 2020, 00:00', summary: `${album.wiki} <a href="${url}">Read more on Last.fm</a>.`, content: `${album.wiki}\n\nUser-contributed text is available under the Creative Commons By-SA License.` },
          }),
        },
      },
    };
  };

  const handler = (req: SeenRequest): FakeReply => {
    const injected = errors.shift();
    if (injected) return error(injected.code, 'Injected failure', injected.status);
    if (req.path !== '/' && req.path !== '') return { status: 404, body: '<html>Not found</html>', headers: { 'content-type': 'text/html' } };
    const q = req.query;
    if (q.get('api_key') !== fake.apiKey) return error(10, 'Invalid API key - You must be granted a valid key by last.fm', 403);
    const method = (q.get('method') ?? '').toLowerCase();
    const wanted = q.get('mbid') ? [...artists.values()].find((a) => a.mbid === q.get('mbid')) : artists.get((q.get('artist') ?? '').toLowerCase());
    if (method === 'album.getinfo') return albumInfo(q);
    if (!method.startsWith('artist.')) return error(3, 'Invalid Method - No method with that name in this package', 400);
    if (!q.get('artist') && !q.get('mbid')) return error(6, 'Invalid parameters - Your request is missing a required parameter', 400);
    if (!wanted) return error(6, 'The artist you supplied could not be found');
    const a = wanted;
    const tag = (name: string, i: number) => ({ name, count: 100 - i * 10, url: `https://www.last.fm/tag/${encodeURIComponent(name)}` });
    switch (method) {
      case 'artist.getinfo':
        return {
          body: {
            artist: {
              name: a.name,
              mbid: a.mbid ?? '',
              url: `https://www.last.fm/music/${encodeURIComponent(a.name)}`,
              image: images(a.name),
              streamable: '0',
              ontour: '0',
              stats: { listeners: String(a.listeners ?? 1234), playcount: String((a.listeners ?? 1234) * 10) },
              similar: { artist: one((a.similar ?? []).slice(0, 5).map((s) => ({ name: s.name, url: '', image: images(s.name) }))) },
              tags: (a.tags ?? []).length ? { tag: one((a.tags ?? []).map((t, i) => ({ name: t, url: tag(t, i).url }))) } : '',
              bio: { links: { link: { '#text': '', rel: 'original', href: '' } }, published: '01 Jan 2020, 00:00', summary: a.bio ?? '', content: a.bio ?? '' },
            },
          },
        };
      case 'artist.gettoptags':
        return { body: { toptags: { tag: one((a.tags ?? []).map(tag)), '@attr': { artist: a.name } } } };
      case 'artist.getsimilar': {
        const limit = Math.max(1, Number(q.get('limit') ?? 100) || 100);
        const list = (a.similar ?? []).slice(0, limit).map((s) => ({
          name: s.name,
          mbid: s.mbid ?? '',
          match: String(s.match),
          url: `https://www.last.fm/music/${encodeURIComponent(s.name)}`,
          image: images(s.name),
          streamable: '0',
        }));
        return { body: { similarartists: { artist: one(list), '@attr': { artist: a.name } } } };
      }
      case 'artist.gettoptracks': {
        const limit = Math.max(1, Number(q.get('limit') ?? 50) || 50);
        const pageNo = Math.max(1, Number(q.get('page') ?? 1) || 1);
        const all = [...(a.topTracks ?? [])].sort((x, y) => y.playcount - x.playcount);
        const slice = all.slice((pageNo - 1) * limit, pageNo * limit).map((t, i) => ({
          name: t.name,
          playcount: String(t.playcount),
          listeners: String(Math.round(t.playcount / 3)),
          mbid: t.mbid ?? '',
          url: `https://www.last.fm/music/${encodeURIComponent(a.name)}/_/${encodeURIComponent(t.name)}`,
          streamable: '0',
          artist: { name: a.name, mbid: a.mbid ?? '', url: '' },
          image: images(t.name),
          '@attr': { rank: String((pageNo - 1) * limit + i + 1) },
        }));
        return {
          body: {
            toptracks: {
              track: one(slice),
              '@attr': { artist: a.name, page: String(pageNo), perPage: String(limit), totalPages: String(Math.max(1, Math.ceil(all.length / limit))), total: String(all.length) },
            },
          },
        };
      }
      default:
        return error(3, 'Invalid Method - No method with that name in this package', 400);
    }
  };
  const fake = (await startJsonFake(handler, '/2.0')) as LastFmFake;
  fake.apiKey = apiKey;
  fake.artists = artists;
  fake.add = (a) => void artists.set(a.name.toLowerCase(), a);
  fake.errorNext = (count, code, status = 200) => {
    for (let i = 0; i < count; i++) errors.push({ code, status });
  };
  seed.forEach(fake.add);
  return fake;
}
