import { startJsonFake, type FakeReply, type JsonFake, type SeenRequest } from '../http.js';

/**
 * The public Deezer API on 127.0.0.1: `/search/artist` (paged by `index`/`limit` with an absolute
 * `next`), `/artist/{id}`, `/artist/{id}/top` with 30 s preview URLs served by the fake itself, `/album/{id}` and
 * `/track/{id}` (with the ISRC), and
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

/** What `/album/{id}` and `/track/{id}` answer (pasted Deezer links are resolved through them). */
export interface FakeDeezerAlbum {
  id: number;
  title: string;
  artist: { id: number; name: string };
  recordType?: string;
}
export interface FakeDeezerTrackDetail {
  id: number;
  title: string;
  artist: { id: number; name: string };
  album: FakeDeezerAlbum;
  isrc?: string;
}

export interface DeezerFake extends JsonFake {
  artists: Map<number, FakeDeezerArtist>;
  albums: Map<number, FakeDeezerAlbum>;
  tracks: Map<number, FakeDeezerTrackDetail>;
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
  const albums = new Map<number, FakeDeezerAlbum>();
  const tracks = new Map<number, FakeDeezerTrackDetail>();
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
    const albumJson = (a: FakeDeezerAlbum) => ({
      id: a.id,
      title: a.title,
      link: `https://www.deezer.com/album/${a.id}`,
      cover_big: `${fake.url}/img/album/${a.id}/500.jpg`,
      record_type: a.recordType ?? 'album',
      release_date: '2019-03-01',
      artist: artistJson(artists.get(a.artist.id) ?? { ...a.artist, top: [] }),
      type: 'album',
    });
    const lookup = /^\/(album|track)\/([^/]+)$/.exec(req.path);
    if (lookup) {
      const id = Number(lookup[2]);
      if (lookup[1] === 'album') {
        const a = albums.get(id);
        return a ? { body: albumJson(a) } : noData;
      }
      const t = tracks.get(id);
      if (!t) return noData;
      return {
        body: {
          id: t.id, readable: true, title: t.title, title_short: t.title, ...(t.isrc && { isrc: t.isrc }), link: `https://www.deezer.com/track/${t.id}`,
          duration: 180, rank: 1000, preview: '', artist: artistJson(artists.get(t.artist.id) ?? { ...t.artist, top: [] }), album: albumJson(t.album), type: 'track',
        },
      };
    }
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
  fake.albums = albums;
  fake.tracks = tracks;
  fake.add = (a) => void artists.set(a.id, a);
  fake.quotaNext = (count) => void (quota = count);
  fake.pictureBytes = Buffer.alloc(0);
  seed.forEach(fake.add);
  return fake;
}
