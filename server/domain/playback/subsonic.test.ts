import { describe, expect, it } from 'vitest';
import type { LocalTrack } from '../../db/playback.js';
import type { SubsonicSong } from '../../integrations/navidrome/index.js';
import { bestMatch, normalize, planUpdate, relativePath } from './subsonic.js';

/** What a Subsonic server holds after the removals and the appended tail. */
function apply(current: string[], wanted: string[]) {
  const { keep, removeIndexes } = planUpdate(current, wanted);
  const drop = new Set(removeIndexes);
  return { result: current.filter((_, i) => !drop.has(i)).concat(wanted.slice(keep)), calls: removeIndexes.length + (wanted.length - keep) };
}

const range = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `s${i + from}`);

describe('planning a remote playlist update', () => {
  it('always ends with exactly the wanted list', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 300; round++) {
      const pool = range(12);
      const pick = () => Array.from({ length: Math.floor(random() * 10) }, () => pool[Math.floor(random() * pool.length)]!);
      const current = pick();
      const wanted = pick();
      expect(apply(current, wanted).result).toEqual(wanted);
    }
  });

  it('moves, removes and appends single tracks with single entries', () => {
    const list = range(500);
    expect(apply(list, [...list.slice(1), list[0]!]).calls).toBe(2);
    expect(apply(list, [...list, 's501']).calls).toBe(1);
    expect(apply(list, list.filter((s) => s !== 's250')).calls).toBe(1);
    expect(apply(list, list).calls).toBe(0);
    expect(planUpdate([], ['a', 'b'])).toEqual({ keep: 0, removeIndexes: [] });
  });
});

describe('matching library tracks to Subsonic songs', () => {
  const track: LocalTrack = {
    id: 1,
    title: 'Night Song',
    artist: 'The Harbor Lights',
    album: 'Salt Roads',
    durationMs: 201_000,
    path: '/music/Harbor Lights/Salt Roads/01 - Night Song.flac',
    root: '/music',
    mbid: null,
  };
  const song = (patch: Partial<SubsonicSong>): SubsonicSong => ({
    id: 'x',
    title: 'Night Song',
    artist: 'Harbor Lights',
    album: 'Salt Roads',
    path: null,
    durationSeconds: 201,
    track: 1,
    musicBrainzId: null,
    ...patch,
  });

  it('prefers the same file, then the same tags closest in duration', () => {
    expect(relativePath(track)).toBe('Harbor Lights/Salt Roads/01 - Night Song.flac');
    const byPath = song({ id: 'p', title: 'Other title', path: 'library/Harbor Lights/Salt Roads/01 - Night Song.flac' });
    expect(bestMatch(track, [song({ id: 't' }), byPath])).toEqual({ song: byPath, method: 'path' });
    const far = song({ id: 'far', durationSeconds: 400 });
    const near = song({ id: 'near', durationSeconds: 202 });
    expect(bestMatch(track, [far, near])?.song.id).toBe('near');
    expect(bestMatch(track, [song({ title: 'Day Song' })])).toBeNull();
    expect(bestMatch(track, [song({ album: 'Another Album' })])).toBeNull();
  });

  it('matches by MusicBrainz recording id after the path and before the tags', () => {
    const withId = { ...track, mbid: '5B11F4CE-A62D-471E-81FC-A69A8278C7DA' };
    const byId = song({ id: 'id', title: 'Night Song (live)', artist: 'Someone', musicBrainzId: '5b11f4ce-a62d-471e-81fc-a69a8278c7da' });
    expect(bestMatch(withId, [song({ id: 't' }), byId])).toEqual({ song: byId, method: 'mbid' });
    const byPath = song({ id: 'p', path: 'Harbor Lights/Salt Roads/01 - Night Song.flac' });
    expect(bestMatch(withId, [byId, byPath])?.method).toBe('path');
    // Another recording's id does not stop a match by tags.
    expect(bestMatch(withId, [song({ id: 't', musicBrainzId: '00000000-0000-4000-8000-000000000000' })])).toMatchObject({ method: 'tags' });
  });

  it('compares names without case, accents, punctuation or a leading "the"', () => {
    expect(normalize('The Harbor Lights')).toBe(normalize('harbor lights'));
    expect(normalize('Café del Mar!')).toBe('cafe del mar');
    expect(normalize('Salt & Iron')).toBe(normalize('salt and iron'));
  });
});
