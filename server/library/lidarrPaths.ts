/**
 * Lidarr sees files at paths of its own host or container (`/music/...`, `D:\Music\...`); this
 * computer may mount them elsewhere. A mapping replaces the longest matching `from` prefix with `to`.
 */
export interface PathMapping {
  from: string;
  to: string;
}

const trimEnd = (p: string) => p.replace(/[\\/]+$/, '');

export function mapLidarrPath(lidarrPath: string, mappings: readonly PathMapping[]): string {
  let best: PathMapping | undefined;
  for (const m of mappings) {
    const from = trimEnd(m.from);
    const matches = lidarrPath === from || lidarrPath.startsWith(from + '/') || lidarrPath.startsWith(from + '\\');
    if (matches && (!best || from.length > trimEnd(best.from).length)) best = m;
  }
  if (!best) return lidarrPath;
  const rest = lidarrPath.slice(trimEnd(best.from).length).replace(/\\/g, '/');
  return trimEnd(best.to) + rest;
}
