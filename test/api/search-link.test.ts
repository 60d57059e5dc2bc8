import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBandcampFake, type BandcampFake } from '../fakes/bandcamp/index.js';
import { startDeezerFake, type DeezerFake } from '../fakes/deezer/index.js';
import { startItunesFake, type ItunesFake } from '../fakes/itunes/index.js';
import { startMusicBrainzFake, type MusicBrainzFake } from '../fakes/musicbrainz/index.js';
import { startOEmbedFake, type OEmbedFake } from '../fakes/oembed/index.js';
import { startSpotifyFake, type SpotifyFake } from '../fakes/spotify/index.js';
import { catalogue, ids } from '../fixtures/catalogue.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let mb: MusicBrainzFake;
let spotify: SpotifyFake;
let deezer: DeezerFake;
let itunes: ItunesFake;
let youtube: OEmbedFake;
let tidal: OEmbedFake;
let bandcamp: BandcampFake;

const dawn = catalogue[0]!.releaseGroups[0]!;
const morningTide = dawn.releases[0]!.tracks[1]!;
const glassSky = dawn.releases[0]!.tracks[2]!;

const resolve = async (url: string) => {
  const res = await server.api(`/api/search/link?url=${encodeURIComponent(url)}`, { token: server.admin.token });
  return { status: res.status, body: (await res.json()) as any };
};
const aurora = { name: 'Aurora Lane', mbid: ids.aurora };

beforeAll(async () => {
  // This process's copy of the shared catalogue: Glass Sky carries an ISRC.
  (glassSky as { isrc?: string }).isrc = 'NOX001900003';
  [mb, spotify, deezer, itunes, youtube, tidal, bandcamp] = await Promise.all([
    startMusicBrainzFake(catalogue), startSpotifyFake(), startDeezerFake(), startItunesFake(),
    startOEmbedFake('/oembed', 'YouTube'), startOEmbedFake('/', 'TIDAL'), startBandcampFake(),
  ]);
  const sArtist = { id: 'AuroraLane000000000001', name: 'Aurora Lane' };
  spotify.artists.set(sArtist.id, sArtist);
  const sAlbum = { id: 'DawnDeluxe000000000002', name: 'Dawn (Deluxe Edition)', artists: [sArtist] };
  spotify.albums.set(sAlbum.id, sAlbum);
  spotify.tracks.set('GlassSkyEdit0000000004', { id: 'GlassSkyEdit0000000004', name: 'Glass Sky (Radio Edit)', artists: [sArtist], album: sAlbum, isrc: 'nox001900003' });
  spotify.tracks.set('MorningTide00000000003', { id: 'MorningTide00000000003', name: 'Morning Tide', artists: [sArtist], album: sAlbum });

  const dArtist = { id: 27, name: 'Aurora Lane' };
  deezer.add({ ...dArtist, top: [] });
  deezer.add({ id: 28, name: 'Nobody Known', top: [] });
  deezer.albums.set(300, { id: 300, title: 'Dusk', artist: dArtist });
  deezer.tracks.set(4000, { id: 4000, title: 'Glass Sky', artist: dArtist, album: { id: 301, title: 'Dawn', artist: dArtist } });

  itunes.entries.push(
    { wrapperType: 'artist', artistId: 11, artistName: 'Aurora Lane' },
    { wrapperType: 'collection', collectionId: 12, collectionName: 'Tide - Single', artistId: 11, artistName: 'Aurora Lane' },
    { wrapperType: 'collection', collectionId: 13, collectionName: 'Dawn', artistId: 11, artistName: 'Aurora Lane' },
    { wrapperType: 'track', trackId: 14, trackName: 'First Light', collectionId: 13, collectionName: 'Dawn', artistId: 11, artistName: 'Aurora Lane' },
  );

  youtube.pages.set('https://www.youtube.com/watch?v=abcDEF12345', { title: 'Aurora Lane - Glass Sky (Official Video)', author_name: 'AuroraLaneVEVO', type: 'video' });
  youtube.pages.set('https://www.youtube.com/watch?v=zyx_-987654', { title: 'Morning Tide', author_name: 'Aurora Lane - Topic', type: 'video' });
  youtube.pages.set('https://music.youtube.com/playlist?list=OLAK5uy_dawn0000000000000000000000000', { title: 'Dawn', author_name: 'Aurora Lane - Topic' });

  tidal.pages.set('https://tidal.com/browse/artist/1001', { title: 'Aurora Lane' });
  tidal.pages.set('https://tidal.com/browse/album/1002', { title: 'Dusk', author_name: 'Aurora Lane' });
  tidal.pages.set('https://tidal.com/browse/track/1003', { title: 'Evening by Aurora Lane' });

  bandcamp.pages.set('auroralane/', { type: 'band', title: 'Aurora Lane', artist: 'Aurora Lane' });
  bandcamp.pages.set('auroralane/album/dawn', { type: 'album', title: 'Dawn', artist: 'Aurora Lane' });
  bandcamp.pages.set('auroralane/track/first-light', { type: 'song', title: 'First Light', artist: 'Aurora Lane', album: 'Dawn' });

  server = await startTestServer({
    env: {
      TONEARM_MUSICBRAINZ_URL: mb.url,
      TONEARM_UPSTREAM_SPACING_MS: '0',
      TONEARM_LIBRARY_WATCH: '0',
      TONEARM_SPOTIFY_API_URL: spotify.apiUrl,
      TONEARM_SPOTIFY_ACCOUNTS_URL: spotify.url,
      TONEARM_DEEZER_URL: deezer.url,
      TONEARM_ITUNES_URL: itunes.url,
      TONEARM_YOUTUBE_URL: youtube.url,
      TONEARM_TIDAL_OEMBED_URL: tidal.url,
      TONEARM_BANDCAMP_URL: bandcamp.url,
      ALLOW_PRIVATE_TARGETS: '127.0.0.1',
    },
  });
}, 60_000);
afterAll(async () => {
  await server.stop();
  await Promise.all([mb, spotify, deezer, itunes, youtube, tidal, bandcamp].map((f) => f.close()));
});

describe('GET /api/search/link', () => {
  it('lists linkSearch among the features', async () => {
    const res = await server.api('/api/health/bootstrap');
    expect(((await res.json()) as any).api.features).toContain('linkSearch');
  });

  it('answers 409 NOT_CONFIGURED for a Spotify link until a Spotify app is set, and keeps its secret masked', async () => {
    const before = await resolve('https://open.spotify.com/artist/AuroraLane000000000001');
    expect(before.status).toBe(409);
    expect(before.body.code).toBe('NOT_CONFIGURED');
    const saved = await server.api('/api/settings', {
      method: 'POST', token: server.admin.token, json: { integrations: { spotify: { clientId: spotify.clientId, clientSecret: spotify.clientSecret } } },
    });
    expect(saved.status).toBe(200);
    expect(((await saved.json()) as any).integrations.spotify).toEqual({ clientId: 'test-client', clientSecret: '********', enabled: true });
  });

  it('resolves Spotify artist, album and track links (and spotify: URIs) with one app token', async () => {
    expect((await resolve('https://open.spotify.com/artist/AuroraLane000000000001?si=x')).body).toEqual({ kind: 'artist', source: 'spotify', artist: aurora, album: null, track: null });
    expect((await resolve('https://open.spotify.com/intl-de/album/DawnDeluxe000000000002')).body).toEqual({
      kind: 'album', source: 'spotify', artist: aurora, album: { title: 'Dawn (Deluxe Edition)', mbid: ids.rgDawn }, track: null,
    });
    expect((await resolve('spotify:track:MorningTide00000000003')).body).toEqual({
      kind: 'track', source: 'spotify', artist: aurora, album: { title: 'Dawn (Deluxe Edition)', mbid: ids.rgDawn }, track: { title: 'Morning Tide', mbid: morningTide.recordingId },
    });
    // Titles differ ("Radio Edit"); the ISRC names the recording.
    expect((await resolve('https://open.spotify.com/track/GlassSkyEdit0000000004')).body.track).toEqual({ title: 'Glass Sky (Radio Edit)', mbid: glassSky.recordingId });
    expect(spotify.tokensIssued).toBe(1);
    expect(spotify.requests.filter((r) => r.path === '/api/token').every((r) => r.method === 'POST')).toBe(true);
  });

  it('fetches a new Spotify token once when the API refuses the old one', async () => {
    spotify.revokeTokens();
    const again = await resolve('https://open.spotify.com/track/MorningTide00000000003');
    expect(again.status).toBe(200);
    expect(spotify.tokensIssued).toBe(2);
  });

  it('resolves Deezer links through the public API, with a null mbid when MusicBrainz has no match and 404 for an unknown id', async () => {
    expect((await resolve('https://www.deezer.com/en/artist/27')).body).toEqual({ kind: 'artist', source: 'deezer', artist: aurora, album: null, track: null });
    expect((await resolve('https://www.deezer.com/album/300')).body).toMatchObject({ kind: 'album', album: { title: 'Dusk', mbid: ids.rgDusk } });
    expect((await resolve('deezer.com/fr/track/4000')).body).toEqual({
      kind: 'track', source: 'deezer', artist: aurora, album: { title: 'Dawn', mbid: ids.rgDawn }, track: { title: 'Glass Sky', mbid: glassSky.recordingId },
    });
    expect((await resolve('https://www.deezer.com/artist/28')).body).toEqual({ kind: 'artist', source: 'deezer', artist: { name: 'Nobody Known', mbid: null }, album: null, track: null });
    const unknown = await resolve('https://www.deezer.com/album/999');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('Link target not found');
  });

  it('resolves Apple Music artist, album, song and album?i= track links through the iTunes lookup', async () => {
    expect((await resolve('https://music.apple.com/us/artist/aurora-lane/11')).body).toEqual({ kind: 'artist', source: 'apple', artist: aurora, album: null, track: null });
    expect((await resolve('https://music.apple.com/gb/album/tide-single/12')).body).toMatchObject({ kind: 'album', album: { title: 'Tide - Single', mbid: ids.rgSingle } });
    const track = { kind: 'track', source: 'apple', artist: aurora, album: { title: 'Dawn', mbid: ids.rgDawn }, track: { title: 'First Light', mbid: dawn.releases[0]!.tracks[0]!.recordingId } };
    expect((await resolve('https://music.apple.com/us/song/first-light/14')).body).toEqual(track);
    expect((await resolve('https://music.apple.com/us/album/dawn/13?i=14')).body).toEqual(track);
    expect(itunes.requests.at(-1)!.query.get('country')).toBe('us');
  });

  it('resolves YouTube and YouTube Music videos and album playlists through oEmbed', async () => {
    const glass = { kind: 'track', source: 'youtube', artist: aurora, album: null, track: { title: 'Glass Sky', mbid: glassSky.recordingId } };
    expect((await resolve('https://www.youtube.com/watch?v=abcDEF12345&t=10')).body).toEqual(glass);
    expect((await resolve('https://youtu.be/abcDEF12345')).body).toEqual(glass);
    expect((await resolve('https://music.youtube.com/watch?v=zyx_-987654&feature=share')).body).toEqual({
      kind: 'track', source: 'youtube', artist: aurora, album: null, track: { title: 'Morning Tide', mbid: morningTide.recordingId },
    });
    expect((await resolve('https://music.youtube.com/playlist?list=OLAK5uy_dawn0000000000000000000000000')).body).toEqual({
      kind: 'album', source: 'youtube', artist: aurora, album: { title: 'Dawn', mbid: ids.rgDawn }, track: null,
    });
  });

  it('resolves Tidal artist, album and track links through oEmbed', async () => {
    expect((await resolve('https://tidal.com/browse/artist/1001')).body).toEqual({ kind: 'artist', source: 'tidal', artist: aurora, album: null, track: null });
    expect((await resolve('https://listen.tidal.com/album/1002')).body).toMatchObject({ kind: 'album', artist: aurora, album: { title: 'Dusk', mbid: ids.rgDusk } });
    const evening = catalogue[0]!.releaseGroups[1]!.releases[0]!.tracks[0]!;
    expect((await resolve('https://tidal.com/track/1003')).body).toMatchObject({ kind: 'track', artist: aurora, track: { title: 'Evening', mbid: evening.recordingId } });
  });

  it('resolves Bandcamp artist, album and track pages from their OpenGraph tags', async () => {
    expect((await resolve('https://auroralane.bandcamp.com/')).body).toEqual({ kind: 'artist', source: 'bandcamp', artist: aurora, album: null, track: null });
    expect((await resolve('https://auroralane.bandcamp.com/album/dawn')).body).toMatchObject({ kind: 'album', album: { title: 'Dawn', mbid: ids.rgDawn } });
    expect((await resolve('https://auroralane.bandcamp.com/track/first-light')).body).toMatchObject({
      kind: 'track', album: { title: 'Dawn', mbid: ids.rgDawn }, track: { title: 'First Light', mbid: dawn.releases[0]!.tracks[0]!.recordingId },
    });
    expect((await resolve('https://auroralane.bandcamp.com/album/missing')).status).toBe(404);
  });

  it('resolves MusicBrainz artist, release-group, release and recording links by id', async () => {
    expect((await resolve(`https://musicbrainz.org/artist/${ids.aurora}`)).body).toEqual({ kind: 'artist', source: 'musicbrainz', artist: aurora, album: null, track: null });
    const album = { kind: 'album', source: 'musicbrainz', artist: aurora, album: { title: 'Dawn', mbid: ids.rgDawn }, track: null };
    expect((await resolve(`https://musicbrainz.org/release-group/${ids.rgDawn}`)).body).toEqual(album);
    expect((await resolve(`https://musicbrainz.org/release/${ids.relDawn}`)).body).toEqual(album);
    expect((await resolve(`https://musicbrainz.org/recording/${glassSky.recordingId}`)).body).toEqual({
      kind: 'track', source: 'musicbrainz', artist: aurora, album: { title: 'Dawn', mbid: ids.rgDawn }, track: { title: 'Glass Sky', mbid: glassSky.recordingId },
    });
    expect((await resolve('https://musicbrainz.org/artist/00000000-0000-4000-8000-0000000009aa')).status).toBe(404);
  });

  it('answers the names with null mbids while MusicBrainz lookups are switched off', async () => {
    const off = (enabled: boolean) =>
      server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { integrations: { musicbrainz: { enabled } } } });
    expect((await off(false)).status).toBe(200);
    try {
      expect((await resolve('https://tidal.com/browse/album/1002')).body).toEqual({
        kind: 'album', source: 'tidal', artist: { name: 'Aurora Lane', mbid: null }, album: { title: 'Dusk', mbid: null }, track: null,
      });
    } finally {
      await off(true);
    }
  });

  it('answers 400 UNSUPPORTED_LINK for links it cannot resolve, and 400 VALIDATION_ERROR without a url', async () => {
    for (const url of [
      'https://example.com/album/1', 'https://soundcloud.com/aurora/dawn', 'https://www.youtube.com/channel/UC123',
      'https://open.spotify.com/playlist/37i9dQZF1DXcBWIGoYBM5M', 'https://www.youtube.com/playlist?list=PL123', 'not a link', 'ftp://deezer.com/album/1',
      `https://musicbrainz.org/work/${ids.aurora}`,
    ]) {
      const res = await resolve(url);
      expect(res.status, url).toBe(400);
      expect(res.body.code, url).toBe('UNSUPPORTED_LINK');
      expect(typeof res.body.error).toBe('string');
    }
    const missing = await server.api('/api/search/link', { token: server.admin.token });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as any).code).toBe('VALIDATION_ERROR');
  });
});
