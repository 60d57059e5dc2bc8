import { describe, expect, it } from 'vitest';
import { mapLidarrPath } from './lidarrPaths.js';

describe('mapLidarrPath', () => {
  const mappings = [
    { from: '/music', to: '/mnt/nas/music' },
    { from: '/music/lossless/', to: '/srv/flac' },
    { from: 'D:\\Media', to: '/media/d' },
  ];

  it('replaces the longest matching prefix', () => {
    expect(mapLidarrPath('/music/A/B/01.flac', mappings)).toBe('/mnt/nas/music/A/B/01.flac');
    expect(mapLidarrPath('/music/lossless/A/01.flac', mappings)).toBe('/srv/flac/A/01.flac');
  });

  it('matches whole path segments only', () => {
    expect(mapLidarrPath('/musicals/A.flac', mappings)).toBe('/musicals/A.flac');
  });

  it('turns Windows separators after the prefix into slashes', () => {
    expect(mapLidarrPath('D:\\Media\\Artist\\01.flac', mappings)).toBe('/media/d/Artist/01.flac');
  });

  it('leaves unmapped paths alone', () => {
    expect(mapLidarrPath('/other/x.flac', [])).toBe('/other/x.flac');
  });
});
