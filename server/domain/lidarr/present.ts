import type { Album, Artist } from '../../integrations/lidarr/index.js';

/** Lidarr's artists and albums as the library routes answer them (api.md entries plus Lidarr's fields). */
export function artistOut(a: Artist) {
  const s = a.statistics ?? {};
  return {
    id: a.id,
    mbid: a.foreignArtistId,
    foreignArtistId: a.foreignArtistId,
    artistName: a.artistName,
    name: a.artistName,
    monitored: a.monitored ?? false,
    monitorNewItems: a.monitorNewItems ?? null,
    path: a.path ?? null,
    rootFolderPath: a.rootFolderPath ?? null,
    qualityProfileId: a.qualityProfileId ?? null,
    metadataProfileId: a.metadataProfileId ?? null,
    status: a.status ?? null,
    addedAt: a.added ?? null,
    statistics: {
      albumCount: s.albumCount ?? 0,
      trackCount: s.trackCount ?? 0,
      trackFileCount: s.trackFileCount ?? 0,
      sizeOnDisk: s.sizeOnDisk ?? 0,
    },
    managedBy: 'lidarr' as const,
  };
}

export function albumOut(a: Album) {
  const s = a.statistics ?? {};
  return {
    id: a.id,
    mbid: a.foreignAlbumId,
    foreignAlbumId: a.foreignAlbumId,
    title: a.title,
    albumName: a.title,
    artistId: a.artistId ?? null,
    artistName: a.artist?.artistName ?? null,
    monitored: a.monitored ?? false,
    albumType: a.albumType ?? null,
    secondaryTypes: a.secondaryTypes ?? [],
    releaseDate: a.releaseDate ?? null,
    statistics: {
      trackCount: s.trackCount ?? 0,
      trackFileCount: s.trackFileCount ?? 0,
      sizeOnDisk: s.sizeOnDisk ?? 0,
      percentOfTracks: s.percentOfTracks ?? 0,
    },
    managedBy: 'lidarr' as const,
  };
}

export const isComplete = (a: Album) => (a.statistics?.trackCount ?? 0) > 0 && (a.statistics?.trackFileCount ?? 0) >= (a.statistics?.trackCount ?? 0);
