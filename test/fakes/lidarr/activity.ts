import type { AlbumRecord, ArtistRecord, LidarrLibrary, TrackView } from './library.js';
import { derivedMbid } from './names.js';
import { albumResource, artistResource, flacQuality } from './resources.js';

/**
 * Commands, the download queue and history. Commands move queued → started → completed on timers;
 * an album search can "grab" (a queue item and a `grabbed` history entry) and later "import" (track
 * files, on disk when the root folder exists, and `downloadImported` history), like a real download.
 */
type Json = Record<string, unknown>;

export interface ActivityOptions {
  /** Delay before a command starts, and how long it then runs. */
  commandStartMs?: number;
  commandRunMs?: number;
  /** When true, AlbumSearch and ArtistSearch grab every searched album that has no files yet. */
  searchGrabs?: boolean;
  /** Delay from grab to import; default 100 ms. */
  importAfterMs?: number;
  /** Bytes written for each imported track file when the root folder exists on disk. */
  fileContent?: (path: string, track: TrackView) => Buffer;
}

export interface ActivityHooks {
  onRefreshArtist?(artistId: number | undefined): void;
  onGrab?(album: AlbumRecord, item: QueueRecord): void;
  onImport?(album: AlbumRecord, fileIds: number[], item: QueueRecord): void;
}

export interface CommandRecord {
  id: number;
  name: string;
  body: Json;
  status: 'queued' | 'started' | 'completed' | 'failed';
  queued: string;
  started?: string;
  ended?: string;
  stateChangeTime: string;
}

export interface QueueRecord {
  id: number;
  artistId: number;
  albumId: number;
  title: string;
  downloadId: string;
  added: string;
  size: number;
  sizeleft: number;
  state: 'downloading' | 'importPending' | 'importing';
}

export interface HistoryRecord {
  id: number;
  albumId: number;
  artistId: number;
  trackId: number;
  sourceTitle: string;
  date: string;
  downloadId: string;
  eventType: string;
  data: Record<string, string>;
}

const commandNames: Record<string, string> = {
  AlbumSearch: 'Album Search',
  ArtistSearch: 'Artist Search',
  RefreshArtist: 'Refresh Artist',
  RescanFolders: 'Rescan Folders',
  MissingAlbumSearch: 'Missing Album Search',
};

export class LidarrActivity {
  readonly commands: CommandRecord[] = [];
  readonly queue: QueueRecord[] = [];
  readonly history: HistoryRecord[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private nextCommandId = 1;
  private nextQueueId = 1;
  private nextHistoryId = 1;

  constructor(
    private readonly lib: LidarrLibrary,
    /** Live: tests may change timings while the fake runs. */
    readonly options: ActivityOptions,
    private readonly hooks: ActivityHooks = {},
  ) {}

  /** True when no command, grab or import is waiting on a timer. */
  get idle(): boolean {
    return this.timers.size === 0;
  }

  later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  postCommand(body: Json): CommandRecord {
    const now = new Date().toISOString();
    const name = String(body.name);
    const command: CommandRecord = { id: this.nextCommandId++, name, body, status: 'queued', queued: now, stateChangeTime: now };
    this.commands.push(command);
    this.later(this.options.commandStartMs ?? 20, () => {
      command.status = 'started';
      command.started = command.stateChangeTime = new Date().toISOString();
      this.later(this.options.commandRunMs ?? 50, () => this.complete(command));
    });
    return command;
  }

  private complete(command: CommandRecord): void {
    command.status = 'completed';
    command.ended = command.stateChangeTime = new Date().toISOString();
    const ids = (key: string) => (Array.isArray(command.body[key]) ? (command.body[key] as unknown[]).map(Number) : []);
    if (command.name === 'RefreshArtist') {
      this.hooks.onRefreshArtist?.(command.body.artistId === undefined ? undefined : Number(command.body.artistId));
    }
    const searched: AlbumRecord[] = [];
    if (command.name === 'AlbumSearch') {
      for (const id of ids('albumIds')) {
        const album = this.lib.albums.get(id);
        if (album) searched.push(album);
      }
    }
    if (command.name === 'ArtistSearch') {
      const artist = this.lib.artists.get(Number(command.body.artistId));
      if (artist) searched.push(...this.lib.albumsOf(artist).filter((a) => a.monitored));
    }
    for (const album of searched) {
      album.lastSearchTime = command.ended;
      if (this.options.searchGrabs && album.fileCount < album.trackCount) this.grab(album);
    }
  }

  /** Puts an album in the download queue and schedules its import. */
  grab(album: AlbumRecord): QueueRecord {
    const artist = this.lib.artists.get(album.artistId);
    const size = album.trackCount * 30_000_000;
    const item: QueueRecord = {
      id: this.nextQueueId++,
      artistId: album.artistId,
      albumId: album.id,
      title: `${artist?.artistName ?? 'Unknown'} - ${album.title} (${album.releaseDate.slice(0, 4)}) [FLAC]`,
      downloadId: derivedMbid('download', album.id, this.nextQueueId).replace(/-/g, '').toUpperCase().slice(0, 40),
      added: new Date().toISOString(),
      size,
      sizeleft: size,
      state: 'downloading',
    };
    this.queue.push(item);
    this.record(item, 'grabbed', 0, { indexer: 'FakeIndexer', downloadClient: 'qBittorrent', protocol: 'torrent' });
    this.hooks.onGrab?.(album, item);
    this.later(this.options.importAfterMs ?? 100, () => this.import(item));
    return item;
  }

  private import(item: QueueRecord): void {
    const index = this.queue.indexOf(item);
    if (index !== -1) this.queue.splice(index, 1);
    const album = this.lib.albums.get(item.albumId);
    if (!album) return;
    const content = this.options.fileContent ?? placeholderAudio;
    const fileIds = this.lib.importFiles(album, content);
    for (let i = 0; i < album.trackCount; i++) {
      this.record(item, 'trackFileImported', album.firstTrackId + i, {
        importedPath: this.lib.trackFilePath(album, i),
        downloadClient: 'qBittorrent',
      });
    }
    this.record(item, 'downloadImported', 0, { downloadClient: 'qBittorrent' });
    this.hooks.onImport?.(album, fileIds, item);
  }

  private record(item: QueueRecord, eventType: string, trackId: number, data: Record<string, string>): void {
    this.history.push({
      id: this.nextHistoryId++,
      albumId: item.albumId,
      artistId: item.artistId,
      trackId,
      sourceTitle: item.title,
      date: new Date().toISOString(),
      downloadId: item.downloadId,
      eventType,
      data,
    });
  }

  /** Queue items for paging tests: they stay "downloading" and never import. */
  seedQueue(count: number, album: AlbumRecord): void {
    for (let i = 0; i < count; i++) {
      this.queue.push({
        id: this.nextQueueId++,
        artistId: album.artistId,
        albumId: album.id,
        title: `${album.title} [seeded ${i + 1}]`,
        downloadId: `SEEDED${String(i).padStart(6, '0')}`,
        added: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
        size: 100_000_000,
        sizeleft: 50_000_000,
        state: 'downloading',
      });
    }
  }

  seedHistory(count: number, album: AlbumRecord): void {
    for (let i = 0; i < count; i++) {
      this.history.push({
        id: this.nextHistoryId++,
        albumId: album.id,
        artistId: album.artistId,
        trackId: 0,
        sourceTitle: `${album.title} [seeded ${i + 1}]`,
        date: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(),
        downloadId: `SEEDED${String(i).padStart(6, '0')}`,
        eventType: i % 2 === 0 ? 'grabbed' : 'downloadImported',
        data: {},
      });
    }
  }

  commandResource(c: CommandRecord): Json {
    const durationMs = c.started && c.ended ? Date.parse(c.ended) - Date.parse(c.started) : undefined;
    return {
      id: c.id,
      name: c.name,
      commandName: commandNames[c.name] ?? c.name,
      ...(c.status === 'completed' ? { message: 'Completed' } : {}),
      body: {
        ...c.body,
        sendUpdatesToClient: true,
        updateScheduledTask: true,
        completionMessage: 'Completed',
        requiresDiskAccess: false,
        isExclusive: false,
        isTypeExclusive: false,
        isLongRunning: false,
        name: c.name,
        trigger: 'manual',
        suppressMessages: false,
      },
      priority: 'normal',
      status: c.status,
      result: c.status === 'completed' ? 'successful' : 'unknown',
      queued: c.queued,
      ...(c.started ? { started: c.started } : {}),
      ...(c.ended ? { ended: c.ended } : {}),
      ...(durationMs !== undefined ? { duration: timeSpan(durationMs) } : {}),
      trigger: 'manual',
      stateChangeTime: c.stateChangeTime,
      sendUpdatesToClient: true,
      updateScheduledTask: true,
    };
  }

  queueResource(q: QueueRecord, include: { artist?: boolean; album?: boolean }): Json {
    const album = this.lib.albums.get(q.albumId);
    const artist: ArtistRecord | undefined = this.lib.artists.get(q.artistId);
    return {
      id: q.id,
      artistId: q.artistId,
      albumId: q.albumId,
      ...(include.artist && artist ? { artist: artistResource(this.lib, artist) } : {}),
      ...(include.album && album ? { album: albumResource(this.lib, album) } : {}),
      quality: flacQuality,
      customFormats: [],
      customFormatScore: 0,
      size: q.size,
      title: q.title,
      sizeleft: q.sizeleft,
      timeleft: '00:00:10',
      estimatedCompletionTime: new Date(Date.parse(q.added) + 10_000).toISOString(),
      added: q.added,
      status: 'downloading',
      trackedDownloadStatus: 'ok',
      trackedDownloadState: q.state,
      statusMessages: [],
      downloadId: q.downloadId,
      protocol: 'torrent',
      downloadClient: 'qBittorrent',
      downloadClientHasPostImportCategory: false,
      indexer: 'FakeIndexer',
      outputPath: `/downloads/music/${q.title}`,
      trackFileCount: 0,
      trackHasFileCount: 0,
      downloadForced: false,
    };
  }

  historyResource(h: HistoryRecord, include: { artist?: boolean; album?: boolean }): Json {
    const album = this.lib.albums.get(h.albumId);
    const artist = this.lib.artists.get(h.artistId);
    return {
      id: h.id,
      albumId: h.albumId,
      artistId: h.artistId,
      trackId: h.trackId,
      sourceTitle: h.sourceTitle,
      quality: flacQuality,
      customFormats: [],
      customFormatScore: 0,
      qualityCutoffNotMet: false,
      date: h.date,
      downloadId: h.downloadId,
      eventType: h.eventType,
      data: h.data,
      ...(include.album && album ? { album: albumResource(this.lib, album) } : {}),
      ...(include.artist && artist ? { artist: artistResource(this.lib, artist) } : {}),
    };
  }
}

/** .NET TimeSpan text, as Lidarr writes durations: `00:00:00.0500000`. */
function timeSpan(ms: number): string {
  const s = Math.floor(ms / 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  const fraction = String((ms % 1000) * 10_000).padStart(7, '0');
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}.${fraction}`;
}

/** Not playable audio: a FLAC marker and the path, enough for "is the file there" checks. */
function placeholderAudio(path: string): Buffer {
  return Buffer.from(`fLaC\0fake audio for ${path}\n`);
}
