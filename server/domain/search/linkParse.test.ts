import { describe, expect, it } from 'vitest';
import { parseBandcampPage } from '../../integrations/bandcamp/page.js';
import { parseLink } from './linkParse.js';
import { baseTitle, fold } from './match.js';
import { tidalNames, youtubeNames } from './links.js';
import { albumLucene } from './service.js';

const pick = (raw: string) => {
  const p = parseLink(raw);
  return p && { source: p.source, kind: p.kind, id: p.id, ...(p.country && { country: p.country }), ...(p.entity && { entity: p.entity }) };
};

describe('parseLink', () => {
  it.each([
    ['https://open.spotify.com/intl-pt-BR/track/MorningTide00000000003?si=abc', { source: 'spotify', kind: 'track', id: 'MorningTide00000000003' }],
    ['open.spotify.com/album/DawnDeluxe000000000002', { source: 'spotify', kind: 'album', id: 'DawnDeluxe000000000002' }],
    ['spotify:artist:AuroraLane000000000001', { source: 'spotify', kind: 'artist', id: 'AuroraLane000000000001' }],
    ['https://www.deezer.com/us/track/3135556', { source: 'deezer', kind: 'track', id: '3135556' }],
    ['https://itunes.apple.com/us/album/id1440857781', { source: 'apple', kind: 'album', id: '1440857781', country: 'us' }],
    ['https://music.apple.com/fr/album/x/1440857781?i=1440857795', { source: 'apple', kind: 'track', id: '1440857795', country: 'fr' }],
    ['https://m.youtube.com/watch?v=dQw4w9WgXcQ', { source: 'youtube', kind: 'track', id: 'dQw4w9WgXcQ' }],
    ['https://TIDAL.com/browse/album/77646168', { source: 'tidal', kind: 'album', id: '77646168' }],
    ['https://band.bandcamp.com/music', { source: 'bandcamp', kind: 'artist', id: 'band' }],
    ['https://musicbrainz.org/release/00000000-0000-4000-8000-000000000201', { source: 'musicbrainz', kind: 'album', id: '00000000-0000-4000-8000-000000000201', entity: 'release' }],
  ])('%s', (raw, expected) => expect(pick(raw)).toEqual(expected));

  it.each([
    'https://open.spotify.com/track/short', 'https://open.spotify.com/show/MorningTide00000000003', 'https://www.deezer.com/playlist/1',
    'https://music.apple.com/us/playlist/x/pl.123', 'https://youtu.be/short', 'https://www.youtube.com/@aurora', 'https://daily.bandcamp.com/features/x',
    'https://auroralane.bandcamp.com/merch', 'https://musicbrainz.org/artist/not-a-uuid', 'javascript:alert(1)', 'https://evil.example/open.spotify.com/track/MorningTide00000000003',
  ])('refuses %s', (raw) => expect(parseLink(raw)).toBeNull());
});

describe('name matching', () => {
  it('folds case, accents, punctuation and "&"', () => {
    expect(fold('Sigur Rós')).toBe(fold('sigur ros'));
    expect(fold('Simon & Garfunkel')).toBe(fold('Simon and Garfunkel'));
    expect(fold("Guns N' Roses")).toBe('guns n roses');
  });
  it('drops edition and format markers from titles', () => {
    expect(baseTitle('Tide - Single')).toBe('tide');
    expect(baseTitle('Dawn (Deluxe Edition)')).toBe('dawn');
    expect(baseTitle('Abbey Road (Remastered 2019)')).toBe('abbey road');
    expect(baseTitle('Let It Be - Remastered 2009')).toBe('let it be');
    expect(baseTitle('Live at Nowhere')).toBe('live at nowhere');
  });
});

describe('names from page metadata', () => {
  it('reads YouTube titles and authors', () => {
    expect(youtubeNames('track', { title: 'Aurora Lane – Glass Sky [Official Music Video]', author_name: 'AuroraLaneVEVO' })).toEqual({ artist: 'Aurora Lane', album: null, track: 'Glass Sky' });
    expect(youtubeNames('track', { title: 'Glass Sky - Live', author_name: 'Aurora Lane - Topic' })).toEqual({ artist: 'Aurora Lane', album: null, track: 'Glass Sky - Live' });
    expect(youtubeNames('album', { title: 'Album - Dawn', author_name: 'Aurora Lane - Topic' })).toEqual({ artist: 'Aurora Lane', album: 'Dawn', track: null });
  });
  it('reads Tidal titles with or without an author', () => {
    expect(tidalNames('album', { title: 'Dusk', author_name: 'Aurora Lane' })).toEqual({ artist: 'Aurora Lane', album: 'Dusk', track: null });
    expect(tidalNames('track', { title: 'Evening by Aurora Lane' })).toEqual({ artist: 'Aurora Lane', album: null, track: 'Evening' });
  });
  it('reads Bandcamp OpenGraph tags, entities decoded', () => {
    const html = `<meta property="og:title" content="Rock &amp; Roll, by The Band">
      <meta property="og:site_name" content="Label Records"><meta property="og:type" content="song">
      <meta name="description" content="Rock &amp; Roll by The Band, from the album Big Pink. Released 1968.">`;
    expect(parseBandcampPage(html)).toEqual({ title: 'Rock & Roll', artist: 'The Band', type: 'song', album: 'Big Pink' });
    expect(parseBandcampPage('<html></html>')).toBeNull();
  });
});

describe('albumLucene', () => {
  it('quotes the phrase and turns release types into primary alternatives and secondary exclusions', () => {
    expect(albumLucene('a "b"', [])).toBe('"a \\"b\\""');
    const q = albumLucene('dawn', ['album', 'live']);
    expect(q.startsWith('"dawn" AND (primarytype:"album")')).toBe(true);
    expect(q).toContain('NOT secondarytype:"compilation"');
    expect(q).not.toContain('secondarytype:"live"');
  });
});
