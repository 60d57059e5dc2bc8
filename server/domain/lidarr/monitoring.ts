import type { Album } from '../../integrations/lidarr/index.js';
import { isComplete } from './present.js';

/** Which albums of an artist Lidarr monitors (Lidarr's `monitor` option). */
export const monitorModes = ['none', 'all', 'missing', 'latest', 'first', 'future', 'existing'] as const;
export type MonitorMode = (typeof monitorModes)[number];

/** Which of an artist's albums a monitor mode selects (decisions §5's modes). */
export function chooseAlbums(albums: Album[], mode: MonitorMode, now: number): Set<number> {
  const byDate = [...albums].filter((a) => a.releaseDate).sort((x, y) => String(x.releaseDate).localeCompare(String(y.releaseDate)));
  const files = (a: Album) => a.statistics?.trackFileCount ?? 0;
  switch (mode) {
    case 'all':
      return new Set(albums.map((a) => a.id));
    case 'none':
      return new Set();
    case 'missing':
      return new Set(albums.filter((a) => !isComplete(a)).map((a) => a.id));
    case 'existing':
      return new Set(albums.filter((a) => files(a) > 0).map((a) => a.id));
    case 'latest':
      return new Set(byDate.slice(-1).map((a) => a.id));
    case 'first':
      return new Set(byDate.slice(0, 1).map((a) => a.id));
    case 'future':
      return new Set(albums.filter((a) => a.releaseDate && Date.parse(a.releaseDate) > now).map((a) => a.id));
  }
}
