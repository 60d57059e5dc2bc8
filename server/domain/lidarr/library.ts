import { requests } from '../../db/requests.js';
import { IntegrationError } from '../../integrations/errors.js';
import type { Album, Artist, LidarrClient, NewArtist } from '../../integrations/lidarr/index.js';
import { RetryJobError, type Job } from '../../jobs/queue.js';
import { isUserAccount, type Principal } from '../auth/principal.js';
import { ConflictError, NotConfiguredError, NotFoundError, ValidationError } from '../errors.js';
import type { LidarrConnection } from './connection.js';
import { chooseAlbums, type MonitorMode } from './monitoring.js';
import { albumOut, artistOut, isComplete } from './present.js';
import type { Kernel } from '../../kernel.js';
import type { AlbumDownloads } from '../downloads/albums.js';
import type { UsersService } from '../users/service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'db' | 'jobs' | 'log'> & { users: UsersService; albumDownloads: AlbumDownloads };

/** Library operations when Lidarr manages the files (managedBy `lidarr`). */

export type ManagedBy = 'aurral' | 'lidarr';
export const managedByInput = ['aurral', 'lidarr', 'aurral-managed', 'lidarr-managed'] as const;
export type ManagedByInput = (typeof managedByInput)[number];
export { monitorModes, type MonitorMode } from './monitoring.js';

/** Internal misuse: a Lidarr client asked for an item Tonearm manages itself (the routes dispatch those to AlbumDownloads). */
const SELF_MANAGED = 'This item is managed by Tonearm itself (managedBy "aurral"), not by Lidarr';

const isMbid = (key: string) => !/^\d+$/.test(key);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ArtistAddInput {
  mbid: string;
  artistName?: string;
  rootFolderPath?: string;
  qualityProfileId?: number;
  metadataProfileId?: number;
  monitor?: MonitorMode;
  monitored?: boolean;
  searchForMissingAlbums?: boolean;
  managedBy?: ManagedByInput;
}

export interface AlbumRequestInput {
  albumMbid: string;
  albumName?: string;
  artistMbid?: string;
  artistName?: string;
  triggerSearch?: boolean;
  managedBy?: ManagedByInput;
}

export interface LibraryHooks {
  /** Queue a scoped re-index of these Lidarr artists. */
  reindexArtists(artistIds: number[], reason: string): number;
  /** Something changed that the downloads channel shows. */
  downloadsChanged(): void;
}

/** The job queue that follows Lidarr commands to their end and then re-indexes what they touched. */
export const LIDARR_COMMAND_QUEUE = 'lidarr-command';
/** How long a command is followed; after it the re-index runs anyway. */
const FOLLOW_COMMAND_MS = 5 * 60_000;

interface FollowCommand {
  commandId: number;
  artistIds: number[];
  reason: string;
  /** ctx.clock time after which the command is no longer asked about. */
  deadline: number;
}

export class LidarrLibrary {
  /** How long a request for a new artist waits for Lidarr to load its albums. */
  albumWaitMs = 30_000;

  constructor(
    private readonly ctx: Deps,
    private readonly connection: LidarrConnection,
    private readonly hooks: LibraryHooks,
  ) {}

  /** Registers the queue that follows commands (once per server, at start). */
  registerJobs(): void {
    this.ctx.jobs.register<FollowCommand>(LIDARR_COMMAND_QUEUE, {
      concurrency: 2,
      // The deadline ends the following; attempts only bound a clock that stands still.
      maxAttempts: 1000,
      handler: (job) => this.followCommand(job),
    });
  }

  /** api.md's rule for add routes: explicit value, else the user's saved preference, else Lidarr when connected. */
  resolveManagedBy(input: ManagedByInput | undefined, principal: Principal | null): ManagedBy {
    let owner: ManagedBy | null = input ? (input.startsWith('lidarr') ? 'lidarr' : 'aurral') : null;
    if (!owner && principal && isUserAccount(principal)) owner = this.ctx.users.lidarrPreferences(principal.userId).managedBy;
    return owner ?? (this.connection.configured ? 'lidarr' : 'aurral');
  }

  /** The Lidarr client for an add route whose owner resolved to `lidarr`. */
  clientFor(input: ManagedByInput | undefined, principal: Principal | null): LidarrClient {
    const owner = this.resolveManagedBy(input, principal);
    if (owner === 'aurral') throw new ConflictError(SELF_MANAGED, 'MANAGED_BY_AURRAL');
    return this.connection.require();
  }

  // --- artists ------------------------------------------------------------------------------

  /** Adds an artist; a self-managed one (owner `aurral`) is recorded by AlbumDownloads, which requests albums by monitor mode. */
  async addArtist(principal: Principal | null, input: ArtistAddInput) {
    if (this.resolveManagedBy(input.managedBy, principal) === 'aurral') {
      const added = await this.ctx.albumDownloads.addArtist(principal, input);
      this.hooks.downloadsChanged(); // the activity list caches the recorded requests
      return added;
    }
    return this.addLidarrArtist(principal, input);
  }

  private async addLidarrArtist(principal: Principal | null, input: ArtistAddInput): Promise<{ created: boolean; artist: ReturnType<typeof artistOut> }> {
    const client = this.clientFor(input.managedBy, principal);
    const existing = await client.artistByMbId(input.mbid);
    if (existing) return { created: false, artist: artistOut(existing) };
    const artist = await this.createArtist(client, principal, input);
    this.recordArtistRequest(principal, artist);
    this.hooks.reindexArtists([artist.id], 'artist added');
    return { created: true, artist: artistOut(artist) };
  }

  private recordArtistRequest(principal: Principal | null, artist: Artist): void {
    requests.upsert(
      this.ctx.db,
      {
        kind: 'artist',
        requestKey: artist.foreignArtistId,
        artistMbid: artist.foreignArtistId,
        artistName: artist.artistName,
        title: artist.artistName,
        lidarrArtistId: artist.id,
        userId: principal && isUserAccount(principal) ? principal.userId : null,
        status: 'available',
      },
      this.ctx.clock.now(),
    );
  }

  private async createArtist(client: LidarrClient, principal: Principal | null, input: ArtistAddInput): Promise<Artist> {
    const defaults = await this.artistDefaults(client, principal, input);
    const lookup = await client.lookupArtistByMbId(input.mbid);
    if (!lookup && !input.artistName) throw new NotFoundError('Artist not found', `Lidarr's metadata has no artist ${input.mbid}`);
    const monitor = input.monitor ?? 'all';
    const { id: _id, ...metadata } = lookup ?? ({} as Partial<Artist>);
    const body: NewArtist = {
      ...metadata,
      artistName: lookup?.artistName ?? input.artistName!,
      foreignArtistId: input.mbid,
      ...defaults,
      monitored: input.monitored ?? true,
      monitorNewItems: monitor === 'future' ? 'new' : monitor === 'none' ? 'none' : 'all',
      tags: [],
      addOptions: {
        monitor,
        searchForMissingAlbums: input.searchForMissingAlbums ?? this.connection.settings.searchOnAdd,
      },
    };
    try {
      return await client.addArtist(body);
    } catch (err) {
      // Added meanwhile (another request, or Lidarr's own list): use it.
      if (err instanceof IntegrationError && err.kind === 'bad_request') {
        const found = await client.artistByMbId(input.mbid);
        if (found) return found;
      }
      throw err;
    }
  }

  /** Root folder and profiles: the call's values, else the user's preferences, else settings, else Lidarr's first. */
  private async artistDefaults(client: LidarrClient, principal: Principal | null, input: Partial<ArtistAddInput>) {
    const prefs = principal && isUserAccount(principal) ? this.ctx.users.lidarrPreferences(principal.userId) : null;
    const s = this.connection.settings;
    let rootFolderPath = input.rootFolderPath ?? prefs?.rootFolderPath ?? (s.rootFolderPath || null);
    let qualityProfileId = input.qualityProfileId ?? prefs?.qualityProfileId ?? s.qualityProfileId;
    let metadataProfileId = input.metadataProfileId ?? prefs?.metadataProfileId ?? s.metadataProfileId;
    const [folders, qualities, metadata] = await Promise.all([
      rootFolderPath ? null : client.rootFolders(),
      qualityProfileId ? null : client.qualityProfiles(),
      metadataProfileId ? null : client.metadataProfiles(),
    ]);
    rootFolderPath ??= folders?.[0]?.path ?? null;
    qualityProfileId ??= qualities?.[0]?.id ?? null;
    metadataProfileId ??= metadata?.[0]?.id ?? null;
    if (!rootFolderPath) throw new NotConfiguredError('integrations.lidarr.rootFolderPath', 'Lidarr has no root folder: add one in Lidarr (Settings, Media Management)');
    if (!qualityProfileId || !metadataProfileId) {
      throw new NotConfiguredError('integrations.lidarr.qualityProfileId', 'Lidarr has no quality or metadata profile to add artists with');
    }
    return { rootFolderPath, qualityProfileId, metadataProfileId };
  }

  async artistByMbid(mbid: string): Promise<{ client: LidarrClient; artist: Artist }> {
    const client = this.connection.require();
    const artist = /^\d+$/.test(mbid) ? await client.artist(Number(mbid)) : await client.artistByMbId(mbid);
    if (!artist) throw new NotFoundError('Artist not found', 'Artist not found in Lidarr');
    return { client, artist };
  }

  /** Sets an artist's monitoring: the artist flag, new-release monitoring, and which albums by mode. */
  async updateArtist(mbid: string, patch: { monitored?: boolean; monitor?: MonitorMode }) {
    const { client, artist } = await this.artistByMbid(mbid);
    const mode = patch.monitor;
    const updated = { ...artist };
    if (patch.monitored !== undefined) updated.monitored = patch.monitored;
    let monitoredAlbumIds: number[] | null = null;
    if (mode) {
      updated.monitored = patch.monitored ?? mode !== 'none';
      updated.monitorNewItems = mode === 'future' ? 'new' : mode === 'none' ? 'none' : 'all';
      const albums = await client.albumsByArtist(artist.id);
      const chosen = chooseAlbums(albums, mode, this.ctx.clock.now());
      monitoredAlbumIds = albums.filter((a) => chosen.has(a.id)).map((a) => a.id);
      const unmonitor = albums.filter((a) => !chosen.has(a.id) && a.monitored).map((a) => a.id);
      const monitor = albums.filter((a) => chosen.has(a.id) && !a.monitored).map((a) => a.id);
      if (monitor.length > 0) await client.setAlbumsMonitored(monitor, true);
      if (unmonitor.length > 0) await client.setAlbumsMonitored(unmonitor, false);
    }
    const saved = await client.updateArtist(updated);
    this.hooks.reindexArtists([artist.id], 'artist monitoring changed');
    return { ...artistOut(saved), monitoring: { mode: mode ?? null, monitoredAlbumIds } };
  }

  async deleteArtist(mbid: string, deleteFiles: boolean) {
    const { client, artist } = await this.artistByMbid(mbid);
    await client.deleteArtist(artist.id, { deleteFiles });
    requests.deleteArtist(this.ctx.db, artist.foreignArtistId);
    const jobId = this.hooks.reindexArtists([artist.id], 'artist deleted');
    return { success: true, deletedFiles: deleteFiles, artistId: artist.id, mbid: artist.foreignArtistId, jobId: String(jobId) };
  }

  /** Asks Lidarr to refresh the artist's metadata and disk, then re-indexes it when the command ends. */
  async refreshArtist(mbid: string) {
    const { client, artist } = await this.artistByMbid(mbid);
    const command = await client.runCommand({ name: 'RefreshArtist', artistId: artist.id });
    this.afterCommand(command.id, [artist.id], 'artist refreshed');
    return { success: true, commandId: command.id, status: command.status };
  }

  /**
   * Re-indexes `artistIds` once Lidarr's command has ended (or after FOLLOW_COMMAND_MS): a durable job
   * on the server's clock that asks Lidarr after 100 ms, then at doubling intervals up to 5 s.
   */
  private afterCommand(commandId: number, artistIds: number[], reason: string): void {
    const payload: FollowCommand = { commandId, artistIds, reason, deadline: this.ctx.clock.now() + FOLLOW_COMMAND_MS };
    this.ctx.jobs.enqueue(LIDARR_COMMAND_QUEUE, payload, { delayMs: 100 });
  }

  private async followCommand(job: Job<FollowCommand>): Promise<void> {
    const { commandId, artistIds, reason, deadline } = job.payload;
    if (this.ctx.clock.now() < deadline) {
      try {
        const c = await this.connection.require().command(commandId);
        if (c.status === 'queued' || c.status === 'started') throw new RetryJobError(`Lidarr command ${commandId} is ${c.status}`, Math.min(100 * 2 ** job.attempt, 5000));
      } catch (err) {
        if (err instanceof RetryJobError) throw err;
        this.ctx.log.warn('Lidarr command could not be followed', { commandId, error: String(err) });
      }
    }
    this.hooks.reindexArtists(artistIds, reason);
  }

  // --- albums -------------------------------------------------------------------------------

  /** An album by Lidarr album id (digits, as api.md's routes take) or release-group MBID. */
  async albumByKey(key: string): Promise<{ client: LidarrClient; album: Album }> {
    const client = this.connection.require();
    const album = isMbid(key) ? await client.albumByForeignId(key) : await client.album(Number(key));
    if (!album) throw new NotFoundError('Album not found', 'Album not found in Lidarr');
    return { client, album };
  }

  async updateAlbum(key: string, patch: { monitored?: boolean; anyReleaseOk?: boolean }) {
    const { client, album } = await this.albumByKey(key);
    let saved = album;
    if (patch.anyReleaseOk !== undefined && patch.anyReleaseOk !== album.anyReleaseOk) {
      saved = await client.updateAlbum({ ...album, monitored: patch.monitored ?? album.monitored, anyReleaseOk: patch.anyReleaseOk });
    } else if (patch.monitored !== undefined && patch.monitored !== album.monitored) {
      await client.setAlbumsMonitored([album.id], patch.monitored);
      saved = { ...album, monitored: patch.monitored };
    }
    if (album.artistId) this.hooks.reindexArtists([album.artistId], 'album monitoring changed');
    this.hooks.downloadsChanged();
    return albumOut(saved);
  }

  async deleteAlbum(key: string, deleteFiles: boolean) {
    const { client, album } = await this.albumByKey(key);
    await client.deleteAlbum(album.id, { deleteFiles });
    requests.deleteAlbum(this.ctx.db, { lidarrAlbumId: album.id, albumMbid: album.foreignAlbumId });
    const jobId = album.artistId ? this.hooks.reindexArtists([album.artistId], 'album deleted') : null;
    this.hooks.downloadsChanged();
    return { success: true, deletedFiles: deleteFiles, albumId: album.id, mbid: album.foreignAlbumId, jobId: jobId === null ? null : String(jobId) };
  }

  /**
   * Requests an album: adds its artist to Lidarr first when needed (albums unmonitored), waits until
   * Lidarr has loaded the artist's albums (nudging it with RefreshArtist), adds the album directly
   * when Lidarr's metadata profile left it out, monitors it and searches for it. So a request for a
   * new artist works the first time.
   */
  async requestAlbum(principal: Principal | null, input: AlbumRequestInput) {
    if (this.resolveManagedBy(input.managedBy, principal) === 'aurral') return this.ctx.albumDownloads.request(principal, input);
    return this.requestLidarrAlbum(principal, input);
  }

  /** The Lidarr side of requestAlbum. */
  async requestLidarrAlbum(principal: Principal | null, input: AlbumRequestInput) {
    const client = this.clientFor(input.managedBy, principal);
    let album = await client.albumByForeignId(input.albumMbid);
    let artist: Artist | null = null;
    let createdArtist = false;
    let createdAlbum = false;
    if (!album) {
      let artistMbid = input.artistMbid;
      let albumTitle = input.albumName;
      if (!artistMbid || !albumTitle) {
        const lookup = await client.lookupAlbumByMbId(input.albumMbid);
        artistMbid ??= lookup?.artist?.foreignArtistId;
        albumTitle ??= lookup?.title;
      }
      if (!artistMbid) throw new NotFoundError('Album not found', `Lidarr's metadata has no album ${input.albumMbid}`);
      artist = await client.artistByMbId(artistMbid);
      if (!artist) {
        artist = await this.createArtist(client, principal, {
          mbid: artistMbid,
          artistName: input.artistName,
          monitor: 'none',
          monitored: true,
          searchForMissingAlbums: false,
        });
        createdArtist = true;
      }
      album = await this.waitForAlbum(client, artist.id, input.albumMbid);
      if (!album) {
        album = await client.addAlbum({
          title: albumTitle ?? input.albumMbid,
          foreignAlbumId: input.albumMbid,
          monitored: true,
          anyReleaseOk: true,
          artistId: artist.id,
          artist: { ...artist },
          addOptions: { searchForNewAlbum: false },
        });
      }
      createdAlbum = true;
    }
    artist ??= album.artistId ? await client.artist(album.artistId) : null;
    if (!artist) throw new NotFoundError('Artist not found', 'The album has no artist in Lidarr');
    if (!album.monitored) {
      await client.setAlbumsMonitored([album.id], true);
      album = { ...album, monitored: true };
    }
    const complete = isComplete(album);
    const search = input.triggerSearch ?? this.connection.settings.searchOnAdd;
    let queued = false;
    if (search && !complete) {
      await client.runCommand({ name: 'AlbumSearch', albumIds: [album.id] });
      queued = true;
    }
    const request = requests.upsert(
      this.ctx.db,
      {
        kind: 'album',
        requestKey: album.foreignAlbumId,
        artistMbid: artist.foreignArtistId,
        albumMbid: album.foreignAlbumId,
        artistName: artist.artistName,
        title: album.title,
        lidarrArtistId: artist.id,
        lidarrAlbumId: album.id,
        userId: principal && isUserAccount(principal) ? principal.userId : null,
        status: complete ? 'available' : 'processing',
      },
      this.ctx.clock.now(),
    );
    this.hooks.reindexArtists([artist.id], 'album requested');
    this.hooks.downloadsChanged();
    return {
      success: true,
      createdArtist,
      createdAlbum,
      queued,
      artist: artistOut(artist),
      album: albumOut(album),
      status: complete ? 'available' : queued ? 'searching' : 'added',
      managedBy: 'lidarr' as const,
      requestId: String(request.id),
    };
  }

  private async waitForAlbum(client: LidarrClient, artistId: number, albumMbid: string): Promise<Album | null> {
    const deadline = Date.now() + this.albumWaitMs;
    let refreshed = false;
    for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
      const albums = await client.albumsByArtist(artistId);
      const found = albums.find((a) => a.foreignAlbumId === albumMbid);
      if (found) return found;
      // Albums loaded without this one: Lidarr's metadata profile leaves it out.
      if (albums.length > 0) return null;
      if (!refreshed) {
        await client.runCommand({ name: 'RefreshArtist', artistId });
        refreshed = true;
      }
      if (Date.now() + delay > deadline) return null;
      await sleep(delay);
    }
  }

  /** Monitors an album and, when asked, searches for it. */
  async downloadAlbum(key: string, search: boolean | undefined) {
    const { client, album } = await this.albumByKey(key);
    if (!album.monitored) await client.setAlbumsMonitored([album.id], true);
    const doSearch = search ?? this.connection.settings.searchOnAdd;
    const command = doSearch ? await client.runCommand({ name: 'AlbumSearch', albumIds: [album.id] }) : null;
    if (album.artistId) this.hooks.reindexArtists([album.artistId], 'album monitored');
    this.hooks.downloadsChanged();
    return { success: true, albumId: album.id, monitored: true, searched: command !== null, commandId: command?.id ?? null };
  }

  async searchAlbums(keys: string[]) {
    if (keys.length === 0) throw new ValidationError('albumId or albumIds is required');
    const client = this.connection.require();
    const ids: number[] = [];
    for (const key of keys) ids.push(isMbid(key) ? (await this.albumByKey(key)).album.id : Number(key));
    const command = await client.runCommand({ name: 'AlbumSearch', albumIds: ids });
    this.hooks.downloadsChanged();
    return { success: true, albumIds: ids, commandId: command.id, status: command.status };
  }

  async rootFolders() {
    const folders = await this.connection.require().rootFolders();
    return folders.map((f) => ({ id: f.id, path: f.path, name: f.name ?? null, accessible: f.accessible ?? null, freeSpace: f.freeSpace ?? null, totalSpace: f.totalSpace ?? null }));
  }
}
