import type { AlbumRecord, ArtistRecord, LidarrLibrary } from './library.js';

/**
 * Lidarr's "Connect → Webhook" notifications, shaped as Lidarr sends them: PascalCase `eventType`,
 * camelCase fields, nulls omitted, `artist.name`/`artist.mbId` (never artistName/foreignArtistId).
 */
type Json = Record<string, unknown>;

export type WebhookEventType = 'Test' | 'Grab' | 'Download' | 'Rename' | 'Retag' | 'AlbumDelete' | 'ArtistDelete' | 'ArtistAdd';

export interface WebhookOptions {
  /** Extra request headers, e.g. the API key our endpoint requires. */
  headers?: Record<string, string>;
  method?: 'POST' | 'PUT';
  basicAuth?: { username: string; password: string };
  /** Which artist/album the event is about; defaults to the library's first ones. */
  artistId?: number;
  albumId?: number;
  /** Records already removed from the library (delete events are sent after the removal). */
  artist?: ArtistRecord;
  album?: AlbumRecord;
  deletedFiles?: boolean;
  isUpgrade?: boolean;
  downloadId?: string;
  /** Merged over the built payload last, for odd cases. */
  overrides?: Json;
}

export interface WebhookContext {
  lib: LidarrLibrary;
  instanceName: string;
  applicationUrl: string;
}

export function webhookArtist(a: ArtistRecord): Json {
  return {
    id: a.id,
    name: a.artistName,
    disambiguation: a.disambiguation,
    path: a.path,
    mbId: a.foreignArtistId,
    type: a.artistType,
    overview: a.overview,
    genres: a.genres,
    images: [],
    tags: a.tags.map(String),
  };
}

export function webhookAlbum(a: AlbumRecord): Json {
  return {
    id: a.id,
    mbId: a.foreignAlbumId,
    title: a.title,
    disambiguation: '',
    overview: '',
    albumType: a.albumType,
    secondaryAlbumTypes: a.secondaryTypes,
    releaseDate: a.releaseDate,
    genres: a.genres,
    images: [
      {
        coverType: 'cover',
        url: `/MediaCover/Albums/${a.id}/cover.jpg`,
        remoteUrl: `https://coverartarchive.org/release-group/${a.foreignAlbumId}/front.jpg`,
      },
    ],
  };
}

function webhookTrackFile(lib: LidarrLibrary, album: AlbumRecord, index: number): Json {
  return {
    id: album.fileIds?.[index] ?? 0,
    path: lib.trackFilePath(album, index),
    quality: 'FLAC',
    qualityVersion: 1,
    releaseGroup: 'FAKE',
    size: lib.fileSize(album, index),
    dateAdded: album.filesAdded ?? new Date().toISOString(),
  };
}

export function buildWebhookPayload(ctx: WebhookContext, event: WebhookEventType, options: WebhookOptions = {}): Json {
  const base = { eventType: event, instanceName: ctx.instanceName, applicationUrl: ctx.applicationUrl };
  if (event === 'Test') {
    return {
      ...base,
      artist: { id: 1, name: 'Test Name', path: 'C:\\testpath', mbId: 'aaaaa-aaa-aaaa-aaaaaa' },
      albums: [{ id: 123, title: 'Test title' }],
      ...options.overrides,
    };
  }
  const { lib } = ctx;
  const albumGiven = options.album ?? (options.albumId !== undefined ? lib.albums.get(options.albumId) : undefined);
  const artist =
    options.artist ??
    lib.artists.get(options.artistId ?? albumGiven?.artistId ?? -1) ??
    (options.artistId === undefined ? lib.artists.values().next().value : undefined);
  if (!artist) throw new Error(`sendWebhook(${event}): no such artist in the fake library`);
  const album = albumGiven ?? lib.albumsOf(artist)[0];
  const needsAlbum = event === 'Grab' || event === 'Download' || event === 'AlbumDelete' || event === 'Rename' || event === 'Retag';
  if (needsAlbum && !album) throw new Error(`sendWebhook(${event}): the artist has no album in the fake library`);
  const a = album as AlbumRecord;
  const withFiles = () => Array.from({ length: a.trackCount }, (_, i) => i).filter((i) => a.fileIds?.[i]);
  const downloadId = options.downloadId ?? `FAKE${String(a?.id ?? 0).padStart(8, '0')}`;

  let payload: Json;
  switch (event) {
    case 'Grab':
      payload = {
        artist: webhookArtist(artist),
        albums: [webhookAlbum(a)],
        release: {
          quality: 'FLAC',
          qualityVersion: 1,
          releaseGroup: 'FAKE',
          releaseTitle: `${artist.artistName} - ${a.title} (${a.releaseDate.slice(0, 4)}) [FLAC]`,
          indexer: 'FakeIndexer',
          size: a.trackCount * 30_000_000,
          customFormatScore: 0,
          customFormats: [],
        },
        downloadClient: 'qBittorrent',
        downloadClientType: 'qBittorrent',
        downloadId,
      };
      break;
    case 'Download': {
      const indexes = withFiles();
      payload = {
        artist: webhookArtist(artist),
        album: webhookAlbum(a),
        tracks: indexes.map((i) => {
          const t = lib.track(a, i);
          return { id: t.id, title: t.title, trackNumber: String(i + 1), quality: 'FLAC', qualityVersion: 1, releaseGroup: 'FAKE' };
        }),
        trackFiles: indexes.map((i) => webhookTrackFile(lib, a, i)),
        isUpgrade: options.isUpgrade ?? false,
        downloadClient: 'qBittorrent',
        downloadClientType: 'qBittorrent',
        downloadId,
      };
      if (options.isUpgrade) payload.deletedFiles = [];
      break;
    }
    case 'Rename':
      payload = {
        artist: webhookArtist(artist),
        renamedTrackFiles: withFiles().map((i) => ({
          ...webhookTrackFile(lib, a, i),
          previousPath: lib.trackFilePath(a, i).replace(/\.flac$/, ' (old name).flac'),
        })),
      };
      break;
    case 'Retag': {
      const first = withFiles()[0];
      if (first === undefined) throw new Error('sendWebhook(Retag): the album has no track file');
      payload = { artist: webhookArtist(artist), trackFile: webhookTrackFile(lib, a, first) };
      break;
    }
    case 'AlbumDelete':
      payload = { artist: webhookArtist(artist), album: webhookAlbum(a), deletedFiles: options.deletedFiles ?? false };
      break;
    case 'ArtistDelete':
      payload = { artist: webhookArtist(artist), deletedFiles: options.deletedFiles ?? false };
      break;
    case 'ArtistAdd':
      payload = { artist: webhookArtist(artist) };
      break;
  }
  return { ...base, ...payload, ...options.overrides };
}

export interface WebhookDelivery {
  status: number;
  body: string;
  payload: Json;
}

export async function postWebhook(targetUrl: string, payload: Json, options: WebhookOptions = {}): Promise<WebhookDelivery> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json',
    'User-Agent': 'Lidarr/2.14.5.4836 (ubuntu 24.04)',
    ...options.headers,
  };
  if (options.basicAuth) {
    const { username, password } = options.basicAuth;
    headers.Authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  }
  const res = await fetch(targetUrl, {
    method: options.method ?? 'POST',
    headers,
    body: JSON.stringify(payload),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: await res.text(), payload };
}
