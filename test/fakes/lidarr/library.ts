import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CatalogueAlbum, CatalogueArtist } from './catalogue.js';
import { artistName, derivedTrackTitle, hash32, mbid, prng, safeFileName, title } from './names.js';

/**
 * The fake's library: artists, albums, tracks and track files. Built to hold 8,000 artists / 80,000
 * albums / 800,000 tracks: albums are records, but tracks are a contiguous id range per album with
 * titles and durations derived on demand, and track files are one Int32Array of file ids per album.
 */
export interface ArtistRecord {
  id: number;
  foreignArtistId: string;
  artistName: string;
  sortName: string;
  artistType: string;
  disambiguation: string;
  overview: string;
  genres: string[];
  status: 'continuing' | 'ended';
  path: string;
  rootFolderPath: string;
  qualityProfileId: number;
  metadataProfileId: number;
  monitored: boolean;
  monitorNewItems: 'all' | 'none' | 'new';
  tags: number[];
  added: string;
  albumIds: number[];
}

export interface AlbumRecord {
  id: number;
  artistId: number;
  foreignAlbumId: string;
  foreignReleaseId: string;
  title: string;
  albumType: string;
  secondaryTypes: string[];
  releaseDate: string;
  genres: string[];
  monitored: boolean;
  anyReleaseOk: boolean;
  profileId: number;
  lastSearchTime: string | null;
  seed: number;
  trackCount: number;
  firstTrackId: number;
  trackTitles: string[] | null;
  /** Per track: 0 = no file, otherwise the track file id. Null until the album has a file. */
  fileIds: Int32Array | null;
  fileCount: number;
  sizeOnDisk: number;
  filesAdded: string | null;
}

export interface TrackView {
  id: number;
  album: AlbumRecord;
  index: number;
  title: string;
  durationMs: number;
  fileId: number;
}

export interface SeedLibraryOptions {
  artists: number;
  albumsPerArtist: number;
  tracksPerAlbum: number;
  /** true: every album has files; a number in 0..1: that share of albums does. Files stay in memory. */
  withFiles?: boolean | number;
  seed?: number;
  rootFolderPath?: string;
}

export class LidarrLibrary {
  readonly artists = new Map<number, ArtistRecord>();
  readonly albums = new Map<number, AlbumRecord>();
  private readonly artistsByMbId = new Map<string, number>();
  private readonly albumsByMbId = new Map<string, number>();
  private nextArtistId = 1;
  private nextAlbumId = 1;
  private nextTrackId = 1;
  private nextFileId = 1;

  constructor(private readonly defaultRootFolder: string) {}

  artistByMbId(foreignArtistId: string): ArtistRecord | undefined {
    const id = this.artistsByMbId.get(foreignArtistId);
    return id === undefined ? undefined : this.artists.get(id);
  }

  albumByMbId(foreignAlbumId: string): AlbumRecord | undefined {
    const id = this.albumsByMbId.get(foreignAlbumId);
    return id === undefined ? undefined : this.albums.get(id);
  }

  albumsOf(artist: ArtistRecord): AlbumRecord[] {
    const found: AlbumRecord[] = [];
    for (const id of artist.albumIds) {
      const album = this.albums.get(id);
      if (album) found.push(album);
    }
    return found;
  }

  addArtist(fields: Omit<ArtistRecord, 'id' | 'albumIds' | 'added' | 'sortName' | 'path'> & { path?: string }): ArtistRecord {
    const artist: ArtistRecord = {
      ...fields,
      id: this.nextArtistId++,
      sortName: fields.artistName.toLowerCase().replace(/^the /, ''),
      path: fields.path ?? join(fields.rootFolderPath, safeFileName(fields.artistName)),
      added: new Date().toISOString(),
      albumIds: [],
    };
    this.artists.set(artist.id, artist);
    this.artistsByMbId.set(artist.foreignArtistId, artist.id);
    return artist;
  }

  artistFromCatalogue(
    entry: CatalogueArtist,
    settings: Pick<ArtistRecord, 'rootFolderPath' | 'qualityProfileId' | 'metadataProfileId' | 'monitored' | 'monitorNewItems' | 'tags'> & { path?: string },
  ): ArtistRecord {
    return this.addArtist({
      foreignArtistId: entry.foreignArtistId,
      artistName: entry.artistName,
      artistType: entry.artistType,
      disambiguation: entry.disambiguation,
      overview: entry.overview,
      genres: entry.genres,
      status: entry.status,
      ...settings,
    });
  }

  addAlbum(artist: ArtistRecord, entry: CatalogueAlbum, monitored: boolean): AlbumRecord {
    const album: AlbumRecord = {
      id: this.nextAlbumId++,
      artistId: artist.id,
      foreignAlbumId: entry.foreignAlbumId,
      foreignReleaseId: entry.foreignReleaseId,
      title: entry.title,
      albumType: entry.albumType,
      secondaryTypes: entry.secondaryTypes,
      releaseDate: entry.releaseDate,
      genres: entry.genres,
      monitored,
      anyReleaseOk: true,
      profileId: artist.metadataProfileId,
      lastSearchTime: null,
      seed: entry.seed,
      trackCount: entry.trackCount,
      firstTrackId: this.nextTrackId,
      trackTitles: entry.trackTitles,
      fileIds: null,
      fileCount: 0,
      sizeOnDisk: 0,
      filesAdded: null,
    };
    this.nextTrackId += entry.trackCount;
    this.albums.set(album.id, album);
    this.albumsByMbId.set(album.foreignAlbumId, album.id);
    artist.albumIds.push(album.id);
    return album;
  }

  deleteArtist(artist: ArtistRecord, deleteFiles: boolean): void {
    for (const album of this.albumsOf(artist)) this.deleteAlbum(album, false);
    if (deleteFiles) removeFromDisk(artist.path, artist.rootFolderPath);
    this.artists.delete(artist.id);
    this.artistsByMbId.delete(artist.foreignArtistId);
  }

  deleteAlbum(album: AlbumRecord, deleteFiles: boolean): void {
    const artist = this.artists.get(album.artistId);
    if (deleteFiles && artist && album.fileIds) {
      for (let i = 0; i < album.trackCount; i++) {
        if (album.fileIds[i]) removeFromDisk(this.trackFilePath(album, i), artist.rootFolderPath);
      }
    }
    if (artist) artist.albumIds = artist.albumIds.filter((id) => id !== album.id);
    this.albums.delete(album.id);
    this.albumsByMbId.delete(album.foreignAlbumId);
  }

  track(album: AlbumRecord, index: number): TrackView {
    return {
      id: album.firstTrackId + index,
      album,
      index,
      title: album.trackTitles?.[index] ?? derivedTrackTitle(album.seed, index),
      durationMs: this.durationMs(album, index),
      fileId: album.fileIds?.[index] ?? 0,
    };
  }

  durationMs(album: AlbumRecord, index: number): number {
    return 120_000 + (hash32(album.seed, index) % 240_000);
  }

  albumDurationMs(album: AlbumRecord): number {
    let total = 0;
    for (let i = 0; i < album.trackCount; i++) total += this.durationMs(album, i);
    return total;
  }

  tracks(album: AlbumRecord): TrackView[] {
    return Array.from({ length: album.trackCount }, (_, i) => this.track(album, i));
  }

  albumFolder(album: AlbumRecord): string {
    return join(this.artists.get(album.artistId)?.path ?? '', safeFileName(`${album.title} (${album.releaseDate.slice(0, 4)})`));
  }

  trackFilePath(album: AlbumRecord, index: number): string {
    const t = this.track(album, index);
    return join(this.albumFolder(album), `${String(index + 1).padStart(2, '0')} - ${safeFileName(t.title)}.flac`);
  }

  /** Size in bytes of a track's file: about 1,411 kbit/s × duration, as FLAC roughly is. */
  fileSize(album: AlbumRecord, index: number): number {
    return Math.round((this.durationMs(album, index) / 1000) * 110_000);
  }

  /**
   * Gives every track of the album a file. Real files are written when the artist's root folder
   * exists on disk, so tests that check availability on disk see them; otherwise memory only.
   */
  importFiles(album: AlbumRecord, content?: (path: string, track: TrackView) => Buffer): number[] {
    const artist = this.artists.get(album.artistId);
    const onDisk = content !== undefined && artist !== undefined && isDirectory(artist.rootFolderPath);
    album.fileIds ??= new Int32Array(album.trackCount);
    const created: number[] = [];
    for (let i = 0; i < album.trackCount; i++) {
      if (album.fileIds[i]) continue;
      const id = this.nextFileId++;
      album.fileIds[i] = id;
      album.fileCount++;
      album.sizeOnDisk += this.fileSize(album, i);
      created.push(id);
      if (onDisk) {
        const path = this.trackFilePath(album, i);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, content(path, this.track(album, i)));
      }
    }
    album.filesAdded = new Date().toISOString();
    return created;
  }

  /** Finds a track file by id by scanning: only tests ask for files by id, and rarely. */
  locateFile(fileId: number): { album: AlbumRecord; index: number } | undefined {
    for (const album of this.albums.values()) {
      if (!album.fileIds) continue;
      const index = album.fileIds.indexOf(fileId);
      if (index !== -1) return { album, index };
    }
    return undefined;
  }

  locateTrack(trackId: number): { album: AlbumRecord; index: number } | undefined {
    for (const album of this.albums.values()) {
      const index = trackId - album.firstTrackId;
      if (index >= 0 && index < album.trackCount) return { album, index };
    }
    return undefined;
  }

  /** Fills the library in bulk with generated artists, albums and tracks (deterministic per seed). */
  seed(options: SeedLibraryOptions): { artists: number; albums: number; tracks: number; files: number } {
    const random = prng(options.seed ?? 42);
    const rootFolderPath = options.rootFolderPath ?? this.defaultRootFolder;
    const share = options.withFiles === true ? 1 : options.withFiles === false || options.withFiles === undefined ? 0 : options.withFiles;
    const addedAt = new Date().toISOString();
    const timesUsed = new Map<string, number>();
    let albums = 0;
    let files = 0;
    for (let a = 0; a < options.artists; a++) {
      const { name, type } = artistName(random);
      const foreignArtistId = mbid(random);
      // Names repeat in a big library, as in MusicBrainz; a disambiguation keeps the folders apart.
      const used = (timesUsed.get(name) ?? 0) + 1;
      timesUsed.set(name, used);
      const disambiguation = used > 1 ? `no. ${used}` : '';
      const artist = this.addArtist({
        foreignArtistId,
        artistName: name,
        artistType: type,
        disambiguation,
        path: join(rootFolderPath, safeFileName(disambiguation ? `${name} (${disambiguation})` : name)),
        overview: '',
        genres: ['Rock'],
        status: 'continuing',
        rootFolderPath,
        qualityProfileId: 1,
        metadataProfileId: 1,
        monitored: true,
        monitorNewItems: 'all',
        tags: [],
      });
      for (let b = 0; b < options.albumsPerArtist; b++) {
        const seed = hash32(foreignArtistId, b);
        const album = this.addAlbum(
          artist,
          {
            foreignAlbumId: mbid(random),
            foreignReleaseId: mbid(random),
            title: title(random),
            albumType: b % 5 === 4 ? 'EP' : 'Album',
            secondaryTypes: [],
            releaseDate: `${1970 + (seed % 55)}-${String(1 + (seed % 12)).padStart(2, '0')}-01T00:00:00Z`,
            genres: artist.genres,
            trackCount: options.tracksPerAlbum,
            trackTitles: null,
            seed,
          },
          true,
        );
        albums++;
        if (share > 0 && random() < share) {
          files += this.importFiles(album).length;
          album.filesAdded = addedAt;
        }
      }
    }
    return { artists: options.artists, albums, tracks: albums * options.tracksPerAlbum, files };
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Deletes only inside an existing root folder, never the root folder itself. */
function removeFromDisk(path: string, rootFolderPath: string): void {
  const root = rootFolderPath.replace(/[\\/]+$/, '');
  if (!isDirectory(root) || !path.startsWith(root + '/') || !existsSync(path)) return;
  rmSync(path, { recursive: true, force: true });
}
