import { describe, expect, it } from 'vitest';
import { playingAlbumInOrder, replayGainFactor, storedMode, type GainTrack } from '../../renderer/src/player/replayGain.js';

const rg = { trackGain: -8, trackPeak: 0.5, albumGain: -4, albumPeak: 0.9 };
const album: GainTrack[] = [
  { albumId: 1, trackNumber: 1, replayGain: rg },
  { albumId: 1, trackNumber: 2, replayGain: rg },
  { albumId: 1, trackNumber: 3, replayGain: rg },
];
const db = (x: number) => Math.round(10 ** (x / 20) * 1e6) / 1e6;

describe('web player ReplayGain', () => {
  it('takes the album gain in automatic mode only while an album plays in order', () => {
    expect(playingAlbumInOrder(album, 1)).toBe(true);
    expect(replayGainFactor(album, 1, 'auto')).toBe(db(-4));
    const shuffled = [album[2]!, { albumId: 2, trackNumber: 1, replayGain: rg }, album[0]!];
    expect(playingAlbumInOrder(shuffled, 0)).toBe(false);
    expect(replayGainFactor(shuffled, 0, 'auto')).toBe(db(-8));
    // Same album, but backwards: not in order.
    expect(playingAlbumInOrder([album[2]!, album[1]!, album[0]!], 1)).toBe(false);
    expect(playingAlbumInOrder([{ albumId: 1, discNumber: 1, trackNumber: 9 }, { albumId: 1, discNumber: 2, trackNumber: 1 }], 1)).toBe(true);
  });

  it('falls back to the other gain, applies none when off or unknown, and never lifts the peak past full scale', () => {
    expect(replayGainFactor(album, 0, 'track')).toBe(db(-8));
    expect(replayGainFactor(album, 0, 'album')).toBe(db(-4));
    expect(replayGainFactor(album, 0, 'off')).toBe(1);
    expect(replayGainFactor([{ replayGain: {} }], 0, 'track')).toBe(1);
    expect(replayGainFactor([{}], 0, 'auto')).toBe(1);
    expect(replayGainFactor([{ replayGain: { albumGain: -2 } }], 0, 'track')).toBe(db(-2));
    expect(replayGainFactor([{ replayGain: { trackGain: 3 } }], 0, 'album')).toBe(db(3));
    // +10 dB with a 0.5 peak: at most ×2.
    expect(replayGainFactor([{ replayGain: { trackGain: 10, trackPeak: 0.5 } }], 0, 'track')).toBe(2);
  });

  it('remembers automatic as the default and only the known modes', () => {
    expect(storedMode({ getItem: () => null })).toBe('auto');
    expect(storedMode({ getItem: () => 'album' })).toBe('album');
    expect(storedMode({ getItem: () => 'loud' })).toBe('auto');
  });
});
