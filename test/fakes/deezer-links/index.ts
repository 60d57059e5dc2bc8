import { startJsonFake, type JsonFake } from '../http.js';

/**
 * The Deezer public API's lookups by id (`/artist/{id}`, `/album/{id}`, `/track/{id}`) on
 * 127.0.0.1, with Deezer's habit of answering errors with HTTP 200 and `{error:{type, message, code}}`
 * (800 "no data" for an unknown id).
 */
export interface DeezerArtist { id: number; name: string }
export interface DeezerAlbum { id: number; title: string; artist: DeezerArtist; recordType?: string }
export interface DeezerTrack { id: number; title: string; artist: DeezerArtist; album: DeezerAlbum; isrc?: string }

export interface DeezerLinksFake extends JsonFake {
  artists: Map<number, DeezerArtist>;
  albums: Map<number, DeezerAlbum>;
  tracks: Map<number, DeezerTrack>;
  /** Answer every request with the quota error (code 4). */
  quotaExceeded: boolean;
}

const noData = { error: { type: 'DataException', message: 'no data', code: 800 } };

export async function startDeezerLinksFake(): Promise<DeezerLinksFake> {
  const artistJson = (a: DeezerArtist) => ({
    id: a.id, name: a.name, link: `https://www.deezer.com/artist/${a.id}`, picture: '', picture_small: '', picture_medium: '', picture_big: '', picture_xl: '',
    nb_album: 0, nb_fan: 0, radio: true, tracklist: `https://api.deezer.com/artist/${a.id}/top?limit=50`, type: 'artist',
  });
  const albumJson = (a: DeezerAlbum) => ({
    id: a.id, title: a.title, link: `https://www.deezer.com/album/${a.id}`, cover: '', md5_image: '', genre_id: 0, record_type: a.recordType ?? 'album',
    release_date: '2019-03-01', artist: artistJson(a.artist), type: 'album',
  });
  const fake = (await startJsonFake((req) => {
    if (fake.quotaExceeded) return { body: { error: { type: 'Exception', message: 'Quota limit exceeded', code: 4 } } };
    const m = /^\/(artist|album|track)\/([^/]+)$/.exec(req.path);
    if (!m) return { body: { error: { type: 'DataException', message: 'no data', code: 800 } } };
    const id = Number(m[2]);
    if (m[1] === 'artist') {
      const a = fake.artists.get(id);
      return { body: a ? artistJson(a) : noData };
    }
    if (m[1] === 'album') {
      const a = fake.albums.get(id);
      return { body: a ? albumJson(a) : noData };
    }
    const t = fake.tracks.get(id);
    return {
      body: t
        ? { id: t.id, readable: true, title: t.title, title_short: t.title, ...(t.isrc && { isrc: t.isrc }), link: `https://www.deezer.com/track/${t.id}`, duration: 180, rank: 1000, preview: '', artist: artistJson(t.artist), album: albumJson(t.album), type: 'track' }
        : noData,
    };
  })) as DeezerLinksFake;
  fake.artists = new Map();
  fake.albums = new Map();
  fake.tracks = new Map();
  fake.quotaExceeded = false;
  return fake;
}
