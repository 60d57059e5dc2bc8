import { startJsonFake, type FakeReply, type JsonFake } from '../http.js';

/**
 * The Cover Art Archive on 127.0.0.1: the image list of a release group or release (404 when it
 * has no art), and `front[-size]` answering 307 to the image, which the fake serves itself.
 */
export interface CoverArtFake extends JsonFake {
  /** Gives a release group (or release) a front cover made of these bytes. */
  setCover(mbid: string, bytes: Buffer): void;
}

export async function startCoverArtFake(): Promise<CoverArtFake> {
  const covers = new Map<string, Buffer>();
  const fake = (await startJsonFake((req): FakeReply => {
    const image = /^\/img\/([0-9a-f-]{36})\.jpg$/.exec(req.path);
    if (image) {
      const bytes = covers.get(image[1]!);
      return bytes ? { body: bytes, headers: { 'content-type': 'image/jpeg' } } : { status: 404, body: 'Not Found' };
    }
    const m = /^\/(release-group|release)\/([0-9a-f-]{36})(?:\/(front(?:-\d+)?))?$/.exec(req.path);
    if (!m || !covers.has(m[2]!)) return { status: 404, body: 'No cover art found' };
    const url = `${fake.url}/img/${m[2]}.jpg`;
    if (m[3]) return { status: 307, headers: { location: url }, body: '' };
    return {
      body: {
        release: `https://musicbrainz.org/${m[1]}/${m[2]}`,
        images: [
          {
            id: 1,
            image: url,
            thumbnails: { '250': url, '500': url, '1200': url, small: url, large: url },
            types: ['Front'],
            front: true,
            back: false,
            approved: true,
            comment: '',
            edit: 1,
          },
        ],
      },
    };
  })) as CoverArtFake;
  fake.setCover = (mbid, bytes) => void covers.set(mbid, bytes);
  return fake;
}
