import path from 'node:path';
import type { Request, Response } from 'express';
import type { AppContext } from '../context.js';
import { LibraryReader } from '../db/libraryReads.js';
import { playlistsRepository } from '../db/playlists.js';
import { podcastsRepository } from '../db/podcasts.js';
import { radioStationsRepository } from '../db/radioStations.js';
import { SubsonicIds } from '../db/subsonicIds.js';
import { SubsonicLibrary } from '../db/subsonicLibrary.js';
import { restKeysRepository } from '../db/subsonicRestKeys.js';
import { SubsonicUserData } from '../db/subsonicUserData.js';
import { type ListeningService } from '../domain/listening/service.js';
import { StaticPlaylists } from '../domain/playlists/staticPlaylists.js';
import { Podcasts } from '../domain/podcasts/service.js';
import { allowedPrivateTargets } from '../domain/network/privateTargets.js';
import { RadioStations } from '../domain/radio/stations.js';
import { ArtistIndexCache } from '../domain/subsonic/artistIndex.js';
import { NowPlaying } from '../domain/subsonic/nowPlaying.js';
import { RestKeyService } from '../domain/subsonic/restKeys.js';
import { Transcoder, locateFfmpeg } from '../domain/subsonic/transcoding.js';
import { ImageCache } from '../library/imageCache.js';
import type { RestUser } from './auth.js';
import type { Params } from './params.js';
import type { Format, Payload } from './wire.js';

/** Everything /rest handlers use, built once per server. */
export interface RestContext {
  app: AppContext;
  reader: LibraryReader;
  library: SubsonicLibrary;
  /** Reads of stars, ratings, play counts, bookmarks and the queue; every change goes through `listening`. */
  userData: SubsonicUserData;
  listening: ListeningService;
  ids: SubsonicIds;
  playlists: StaticPlaylists;
  radio: RadioStations;
  podcasts: Podcasts;
  restKeys: RestKeyService;
  artistIndex: ArtistIndexCache;
  nowPlaying: NowPlaying;
  transcoder: Transcoder;
  images: ImageCache;
  imageCacheDir: string;
}

export function createRestContext(app: AppContext, options: { ffmpeg?: string | null } = {}): RestContext {
  const library = new SubsonicLibrary(app.db);
  const ffmpeg = options.ffmpeg !== undefined ? options.ffmpeg : locateFfmpeg(app.config.ffmpegPath);
  const imageCacheDir = path.join(app.config.dataDir, 'images');
  const podcasts = new Podcasts({
    repo: podcastsRepository(app.db),
    dir: path.join(app.config.dataDir, 'podcasts'),
    allowPrivateTargets: () => allowedPrivateTargets(app),
    clock: app.clock,
    log: app.log,
  });
  app.onClose(() => podcasts.close());
  return {
    app,
    reader: new LibraryReader(app.db),
    library,
    userData: new SubsonicUserData(app.db),
    listening: app.listening,
    ids: new SubsonicIds(app.db),
    playlists: new StaticPlaylists(playlistsRepository(app.db), app.clock, app.playlists),
    radio: new RadioStations(radioStationsRepository(app.db), app.clock),
    podcasts,
    restKeys: new RestKeyService(restKeysRepository(app.db), app.clock),
    artistIndex: new ArtistIndexCache(library, app.clock),
    nowPlaying: new NowPlaying(app.clock),
    transcoder: new Transcoder(ffmpeg, path.join(app.config.dataDir, 'transcodes'), () => app.settings.get().transcoding),
    images: new ImageCache(imageCacheDir),
    imageCacheDir,
  };
}

/** One /rest call. */
export interface RestCall {
  rc: RestContext;
  req: Request;
  res: Response;
  params: Params;
  user: RestUser;
  /** The client name (`c`). */
  client: string;
  format: Format;
}

/** Returned by handlers that wrote the response themselves (media). */
export const SENT = Symbol('sent');

export interface RestMethod {
  name: string;
  /** Answered without credentials (getOpenSubsonicExtensions). */
  public?: boolean;
  handler(call: RestCall): Payload | undefined | typeof SENT | Promise<Payload | undefined | typeof SENT>;
}
