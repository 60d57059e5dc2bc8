import { describe, expect, it } from 'vitest';
import {
  MAX_ARTWORK_BYTES,
  artworkLabel,
  artworkSrc,
  checkName,
  ownershipText,
  playableTracks,
  summaryText,
  uploadProblem,
  withoutEntry,
  withEntryMoved,
  trackIdsOf,
  savableTrackIds,
  addedText,
  type PlaylistArtwork,
  type PlaylistDetail,
  type PlaylistTrack,
} from '../../renderer/src/playlists/logic.js';

const art: PlaylistArtwork = { playlistId: '7', kind: 'static', source: 'generated', etag: 'abc123', width: 600, height: 600, bytes: 40_000, mime: 'image/jpeg', updatedAt: 1, url: '/api/playlists/artwork/7?v=abc123' };

/** A library track as the playlist routes present it, with what these rules read. */
const track = (id: number, title: string, artistName: string, durationMs: number): PlaylistTrack => ({
  id, identityKey: `t${id}`, title, trackName: title, artistName, artistId: null, albumId: null, albumTitle: null, mbid: null,
  discNumber: 1, trackNumber: 1, year: null, durationMs, available: true, hasFile: true, size: 1, quality: null, sources: ['aurral'],
  imageUrl: null, streamUrl: `/api/library/canonical-stream/${id}`, files: [], replayGain: {}, userFavorite: false,
});

const detail = (): PlaylistDetail => ({
  id: '7',
  kind: 'static',
  name: 'Road trip',
  comment: '',
  public: false,
  owner: 'admin',
  editable: true,
  songCount: 3,
  durationMs: 600_000,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  artwork: null,
  tracks: [
    { position: 0, track: track(11, 'One', 'A', 200_000) },
    { position: 1, track: track(12, 'Two', 'B', 100_000) },
    { position: 2, track: track(11, 'One', 'A', 200_000) },
  ],
});

describe('playlists screen logic', () => {
  it('builds the artwork URL with the version, the size and the session token', () => {
    expect(artworkSrc(null, 300, 'tok')).toBeNull();
    expect(artworkSrc(art, 300, 'tok')).toBe('/api/playlists/artwork/7?v=abc123&size=300&token=tok');
    expect(artworkSrc(art, 64, null)).toBe('/api/playlists/artwork/7?v=abc123&size=64');
  });

  it('checks a picture before uploading it', () => {
    expect(uploadProblem({ name: 'a.png', type: 'image/png', size: 1000 })).toBeNull();
    expect(uploadProblem({ name: 'a.bin', type: '', size: 1000 })).toBeNull(); // the server decides
    expect(uploadProblem({ name: 'big.jpg', type: 'image/jpeg', size: MAX_ARTWORK_BYTES + 1 })).toMatch(/at most 10 MB/);
    expect(uploadProblem({ name: 'notes.txt', type: 'text/plain', size: 10 })).toMatch(/not a picture/);
    expect(uploadProblem({ name: 'logo.svg', type: 'image/svg+xml', size: 10 })).toMatch(/not a picture/);
    expect(uploadProblem({ name: 'empty.png', type: 'image/png', size: 0 })).toMatch(/empty/);
  });

  it('describes size, length and who sees a playlist', () => {
    expect(summaryText({ songCount: 0, durationMs: 0 })).toBe('Empty');
    expect(summaryText({ songCount: 1, durationMs: 170_000 })).toBe('1 track · 2:50');
    // Under ten minutes the length reads like a track's time: a 12 s playlist is not "1 min" (issue 24).
    expect(summaryText({ songCount: 1, durationMs: 12_000 })).toBe('1 track · 0:12');
    expect(summaryText({ songCount: 2, durationMs: 599_400 })).toBe('2 tracks · 9:59');
    expect(summaryText({ songCount: 3, durationMs: 600_000 })).toBe('3 tracks · 10 min');
    expect(summaryText({ songCount: 9, durationMs: 48 * 60_000 + 20_000 })).toBe('9 tracks · 48 min');
    expect(summaryText({ songCount: 30, durationMs: 95 * 60_000 })).toBe('30 tracks · 1 h 35 min');
    expect(ownershipText({ editable: true, public: false, owner: 'me' })).toBe('Only you');
    expect(ownershipText({ editable: true, public: true, owner: 'me' })).toBe('Public');
    expect(ownershipText({ editable: false, public: true, owner: 'alice' })).toBe('Public · by alice');
    expect(artworkLabel(null)).toBe('No artwork yet');
    expect(artworkLabel(art)).toMatch(/redrawn when the tracks change/);
    expect(artworkLabel({ ...art, source: 'uploaded' })).toBe('Uploaded picture');
  });

  it('moves one entry to a new index, renumbering positions, and says what was added', () => {
    const d = detail();
    const down = withEntryMoved(d, 0, 2);
    expect(down.tracks.map((e) => [e.position, e.track.title])).toEqual([
      [0, 'Two'],
      [1, 'One'],
      [2, 'One'],
    ]);
    expect(trackIdsOf(down)).toEqual([12, 11, 11]);
    expect(trackIdsOf(withEntryMoved(d, 1, 0))).toEqual([12, 11, 11]);
    expect(withEntryMoved(d, 0, 0)).toBe(d);
    expect(withEntryMoved(d, 0, 3)).toBe(d);
    expect(withEntryMoved(d, -1, 1)).toBe(d);
    expect(trackIdsOf(d)).toEqual([11, 12, 11]); // unchanged
    expect(savableTrackIds([{ id: 5 }, { id: -1, previewUrl: 'https://x/p.mp3' }, { id: 6, previewUrl: 'https://x/q.mp3' }, { id: 7 }])).toEqual([5, 7]);
    expect(addedText(1, 'Road trip')).toBe('Added 1 track to Road trip.');
    expect(addedText(3, 'Road trip')).toBe('Added 3 tracks to Road trip.');
  });

  it('removes one entry by position, keeping a repeated track elsewhere in the list', () => {
    const d = detail();
    const after = withoutEntry(d, 0);
    expect(after.tracks.map((e) => [e.position, e.track.title])).toEqual([
      [0, 'Two'],
      [1, 'One'],
    ]);
    expect(after.songCount).toBe(2);
    expect(after.durationMs).toBe(400_000);
    expect(d.tracks).toHaveLength(3); // unchanged
    expect(withoutEntry(d, 9).tracks).toHaveLength(3);
    expect(playableTracks(after).map((t) => t.id)).toEqual([12, 11]);
  });

  it('trims names and refuses empty or overlong ones', () => {
    expect(checkName('  Night drive ')).toEqual({ ok: true, name: 'Night drive' });
    expect(checkName('   ')).toMatchObject({ ok: false });
    expect(checkName('x'.repeat(201))).toMatchObject({ ok: false, message: expect.stringContaining('200') });
  });
});
