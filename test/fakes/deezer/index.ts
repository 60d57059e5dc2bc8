import { startJsonFake, type FakeReply, type JsonFake, type SeenRequest } from '../http.js';

/**
 * The public Deezer API on 127.0.0.1: `/search/artist` (paged by `index`/`limit` with an absolute
 * `next`), `/artist/{id}`, `/artist/{id}/top` with 30 s preview URLs served by the fake itself, and
 * pictures under `/img/`. Like Deezer, errors come with HTTP 200 in the body: an unknown id answers
 * `{error:{type:"DataException", message:"no data", code:800}}`, the quota `code:4`.
 */
export interface FakeDeezerTrack {
  id: number;
  title: string;
  durationS: number;
  rank: number;
  /** false: Deezer has no preview for it (it sends ""). */
  preview?: boolean;
  album?: { id: number; title: string };
}
export interface FakeDeezerArtist {
  id: number;
  name: string;
  /** false: Deezer's picture URLs are empty for it. */
  picture?: boolean;
  fans?: number;
  top: FakeDeezerTrack[];
}

export interface DeezerFake extends JsonFake {
  artists: Map<number, FakeDeezerArtist>;
  add(artist: FakeDeezerArtist): void;
  /** The next `count` API answers are Deezer's 200-with-error quota answer (0 stops it). */
  quotaNext(count: number): void;
  /** Bytes served for every artist picture (a JPEG). */
  pictureBytes: Buffer;
}

const noData: FakeReply = { body: { error: { type: 'DataException', message: 'no data', code: 800 } } };

function paged<T>(items: T[], req: SeenRequest, base: string, defaultLimit: number) {
  const limit = Math.min(100, Math.max(1, Number(req.query.get('limit') ?? defaultLimit) || defaultLimit));
  const index = Math.max(0, Number(req.query.get('index') ?? 0) || 0);
  const data = items.slice(index, index + limit);
  const next = new URLSearchParams(req.query);
  next.set('index', String(index + limit));
  return { data, total: items.length, ...(index + limit < items.length && { next: `${base}${req.path}?${next}` }) };
}

export async function startDeezerFake(seed: FakeDeezerArtist[] = []): Promise<DeezerFake> {
  const artists = new Map<number, FakeDeezerArtist>();
  let quota = 0;
  const fake = (await startJsonFake((req): FakeReply => {
    if (req.path.startsWith('/img/')) return { body: fake.pictureBytes, headers: { 'content-type': 'image/jpeg' } };
    if (req.path.startsWith('/preview/')) return { body: Buffer.from('ID3 fake preview'), headers: { 'content-type': 'audio/mpeg' } };
    if (quota > 0) {
      quota--;
      return { body: { error: { type: 'Exception', message: 'Quota limit exceeded', code: 4 } } };
    }
    const artistJson = (a: FakeDeezerArtist) => {
      const pic = (size: string) => (a.picture === false ? '' : `${fake.url}/img/artist/${a.id}/${size}.jpg`);
      return {
        id: a.id,
        name: a.name,
        link: `https://www.deezer.com/artist/${a.id}`,
        picture: pic('120x120'),
        picture_small: pic('56x56'),
        picture_medium: pic('250x250'),
        picture_big: pic('500x500'),
        picture_xl: pic('1000x1000'),
        nb_album: 3,
        nb_fan: a.fans ?? 1000,
        radio: true,
        tracklist: `${fake.url}/artist/${a.id}/top?limit=50`,
        type: 'artist',
      };
    };
    if (req.path === '/search/artist') {
      const q = (req.query.get('q') ?? '').toLowerCase().trim();
      const hits = [...artists.values()].filter((a) => q && a.name.toLowerCase().includes(q)).sort((x, y) => (y.fans ?? 1000) - (x.fans ?? 1000));
      return { body: paged(hits.map(artistJson), req, fake.url, 25) };
    }
    const m = /^\/artist\/([^/]+)(\/top)?$/.exec(req.path);
    if (m) {
      const a = artists.get(Number(m[1]));
      if (!a) return noData;
      if (!m[2]) return { body: artistJson(a) };
      const tracks = [...a.top].sort((x, y) => y.rank - x.rank).map((t) => ({
        id: t.id,
        readable: true,
        title: t.title,
        title_short: t.title,
        title_version: '',
        link: `https://www.deezer.com/track/${t.id}`,
        duration: t.durationS,
        rank: t.rank,
        explicit_lyrics: false,
        preview: t.preview === false ? '' : `${fake.url}/preview/${t.id}.mp3`,
        contributors: [{ id: a.id, name: a.name }],
        artist: { id: a.id, name: a.name, tracklist: `${fake.url}/artist/${a.id}/top?limit=50`, type: 'artist' },
        album: t.album
          ? { id: t.album.id, title: t.album.title, cover: `${fake.url}/img/album/${t.album.id}.jpg`, cover_medium: `${fake.url}/img/album/${t.album.id}/250.jpg`, cover_big: `${fake.url}/img/album/${t.album.id}/500.jpg`, type: 'album' }
          : undefined,
        type: 'track',
      }));
      return { body: paged(tracks, req, fake.url, 5) };
    }
    return { body: { error: { type: 'DataException', message: 'no data', code: 800 } } };
  })) as DeezerFake;
  fake.artists = artists;
  fake.add = (a) => void artists.set(a.id, a);
  fake.quotaNext = (count) => void (quota = count);
  fake.pictureBytes = Buffer.alloc(0);
  seed.forEach(fake.add);
  return fake;
}
