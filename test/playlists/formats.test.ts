import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../server/domain/errors.js';
import { EXPORT_FORMAT, parsePlaylist, toJspf, toM3u, toOwnExport } from '../../server/domain/playlists/formats.js';

const MBID = '0b3f5a28-3c1d-4b0e-9d6a-8d0f4e2c1a77';

function refusal(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

describe('playlist formats', () => {
  it('reads JSPF as ListenBrainz writes it (title, creator, album, duration, recording identifier)', () => {
    const doc = {
      playlist: {
        title: 'Weekly Jams',
        annotation: 'from LB',
        track: [
          { title: 'Army of Me', creator: 'Björk', album: 'Post', duration: 234000, identifier: [`https://musicbrainz.org/recording/${MBID}`] },
          { title: 'Windowlicker', creator: 'Aphex Twin', identifier: 'https://example.org/x' },
        ],
      },
    };
    const p = parsePlaylist(JSON.stringify(doc));
    expect(p).toMatchObject({ format: 'jspf', name: 'Weekly Jams', description: 'from LB' });
    expect(p.tracks).toEqual([
      { artistName: 'Björk', trackName: 'Army of Me', albumName: 'Post', durationMs: 234000, recordingMbid: MBID },
      { artistName: 'Aphex Twin', trackName: 'Windowlicker', albumName: null, durationMs: null, recordingMbid: null },
    ]);
    // The same document already parsed as JSON.
    expect(parsePlaylist(doc).tracks).toEqual(p.tracks);
  });

  it('reads M3U8 with #EXTINF, #EXTALB and #PLAYLIST, and plain M3U from its paths', () => {
    const m3u8 = '\uFEFF#EXTM3U\r\n#PLAYLIST:Road trip\r\n#EXTINF:215,Björk - Hyperballad\r\n#EXTALB:Post\r\n/music/x.flac\r\n#EXTINF:-1,Portishead - Roads\r\nhttp://host/stream/1\r\n';
    const a = parsePlaylist(m3u8);
    expect(a).toMatchObject({ format: 'm3u', name: 'Road trip' });
    expect(a.tracks).toEqual([
      { artistName: 'Björk', trackName: 'Hyperballad', albumName: 'Post', durationMs: 215000, recordingMbid: null },
      { artistName: 'Portishead', trackName: 'Roads', albumName: null, durationMs: null, recordingMbid: null },
    ]);
    const plain = parsePlaylist('Björk/Post/02 Hyperballad.mp3\nC:\\Music\\Massive Attack - Teardrop.flac\n');
    expect(plain.tracks.map((t) => [t.artistName, t.albumName, t.trackName])).toEqual([
      ['Björk', 'Post', 'Hyperballad'],
      ['Massive Attack', null, 'Teardrop'],
    ]);
  });

  it('exports that read back the same: own JSON, JSPF and M3U', () => {
    const meta = { name: 'Mix', description: 'Notes', owner: 'ana', createdAt: Date.UTC(2026, 0, 2) };
    const tracks = [
      { artistName: 'Björk', trackName: 'Army of Me', albumName: 'Post', durationMs: 234000, recordingMbid: MBID },
      { artistName: 'Sade', trackName: 'Kiss of Life', albumName: null, durationMs: null, recordingMbid: null },
    ];
    const own = toOwnExport(meta, tracks, Date.now());
    expect(own.format).toBe(EXPORT_FORMAT);
    expect(parsePlaylist(JSON.stringify(own))).toEqual({ format: 'tonearm', name: 'Mix', description: 'Notes', tracks });
    expect(parsePlaylist(toJspf(meta, tracks)).tracks).toEqual(tracks);
    const m3u = parsePlaylist(toM3u(meta, tracks));
    expect(m3u.name).toBe('Mix');
    expect(m3u.tracks.map((t) => [t.artistName, t.trackName, t.albumName])).toEqual([
      ['Björk', 'Army of Me', 'Post'],
      ['Sade', 'Kiss of Life', null],
    ]);
  });

  it('refuses broken documents with a message naming the problem', () => {
    expect(refusal(() => parsePlaylist('')).message).toMatch(/empty/);
    expect(refusal(() => parsePlaylist('{"playlist": {"track": [{"creator": "x"}]}}')).message).toMatch(/Track 1 .* no title/);
    expect(refusal(() => parsePlaylist('{"playlist": ')).message).toMatch(/not valid JSON/);
    expect(refusal(() => parsePlaylist('{"hello": 1}')).message).toMatch(/Unrecognised playlist format/);
    expect(refusal(() => parsePlaylist('ID3\u0000\u0000binary')).message).toMatch(/not text/);
    expect(refusal(() => parsePlaylist('#EXTM3U\n#EXTINF:100\nfile.mp3\n')).message).toMatch(/Line 2/);
    expect(refusal(() => parsePlaylist('#EXTM3U\nsong.mp3\n')).message).toMatch(/Line 2: no artist/);
    expect(refusal(() => parsePlaylist({ format: EXPORT_FORMAT, version: 1, name: 'x', tracks: [{ artistName: '', trackName: 't' }] })).message).toMatch(/tracks\.0\.artistName/);
    expect(refusal(() => parsePlaylist('{"playlist": {"track": []}}', 'm3u')).message).toMatch(/Line 1/);
    expect(refusal(() => parsePlaylist('#EXTM3U\n', 'jspf')).message).toMatch(/not valid JSON/);
  });
});
