import type { CatalogueArtist } from './catalogue.js';
import type { AlbumRecord, ArtistRecord } from './library.js';
import {
  albumLookupResource,
  albumResource,
  artistLookupResource,
  artistResource,
  trackFileResource,
  trackResource,
  validationFailure,
} from './resources.js';
import { systemStatus } from './settings.js';
import type { LidarrFakeState } from './state.js';

/** Lidarr v1's routes as the fake answers them. Paths are matched lower-cased, as ASP.NET does. */
export interface RouteRequest {
  params: string[];
  query: URLSearchParams;
  // Request bodies are whatever the client sent; handlers read fields defensively.
  body: any;
}

export interface Reply {
  status: number;
  body?: unknown;
}

type Handler = (state: LidarrFakeState, req: RouteRequest) => Reply;

export interface Route {
  method: string;
  /** Display name for request counts, e.g. `GET /artist/{id}`. */
  name: string;
  pattern: RegExp;
  handle: Handler;
}

const ok = (body: unknown): Reply => ({ status: 200, body });
const created = (body: unknown): Reply => ({ status: 201, body });
const accepted = (body: unknown): Reply => ({ status: 202, body });
const notFound: Reply = { status: 404, body: { message: 'NotFound' } };
const badRequest = (message: string): Reply => ({ status: 400, body: { message } });
const invalid = (...args: Parameters<typeof validationFailure>): Reply => ({ status: 400, body: validationFailure(...args) });

const num = (q: URLSearchParams, key: string): number | undefined => {
  const v = q.get(key);
  return v === null || v === '' ? undefined : Number(v);
};
const nums = (q: URLSearchParams, key: string): number[] =>
  q.getAll(key).flatMap((v) => v.split(',')).filter(Boolean).map(Number);
const bool = (q: URLSearchParams, key: string): boolean => q.get(key)?.toLowerCase() === 'true';

function paged<T>(q: URLSearchParams, all: T[], defaults: { sortKey: string; sortDirection: string }, map: (r: T) => unknown): Reply {
  const page = Math.max(1, num(q, 'page') ?? 1);
  const pageSize = Math.max(1, num(q, 'pageSize') ?? 10);
  const sortDirection = q.get('sortDirection') ?? defaults.sortDirection;
  const ordered = sortDirection === 'descending' ? [...all].reverse() : all;
  return ok({
    page,
    pageSize,
    sortKey: q.get('sortKey') ?? defaults.sortKey,
    sortDirection,
    totalRecords: all.length,
    records: ordered.slice((page - 1) * pageSize, page * pageSize).map(map),
  });
}

/** Which albums an artist add monitors, per Lidarr's `addOptions.monitor`. */
function monitorRule(body: { monitored?: boolean; addOptions?: { monitor?: string; albumsToMonitor?: string[] } }) {
  const option = body.addOptions?.monitor ?? 'all';
  const chosen = body.addOptions?.albumsToMonitor ?? [];
  return (index: number, albums: CatalogueArtist['albums']): boolean => {
    if (body.monitored === false) return false;
    if (chosen.length > 0) return chosen.includes(albums[index]?.foreignAlbumId ?? '');
    const byDate = albums.map((a, i) => ({ i, d: a.releaseDate })).sort((x, y) => x.d.localeCompare(y.d));
    switch (option) {
      case 'all':
      case 'missing':
      case 'unknown':
        return true;
      case 'latest':
        return byDate[byDate.length - 1]?.i === index;
      case 'first':
        return byDate[0]?.i === index;
      default:
        return false; // none, future, existing (nothing exists yet)
    }
  };
}

function artistSettings(state: LidarrFakeState, body: Record<string, unknown>): Reply | Parameters<LidarrFakeState['addArtistFromCatalogue']>[1] {
  const qualityProfileId = Number(body.qualityProfileId ?? 0);
  const metadataProfileId = Number(body.metadataProfileId ?? 0);
  const rootFolderPath = typeof body.rootFolderPath === 'string' ? body.rootFolderPath : undefined;
  const path = typeof body.path === 'string' ? body.path : undefined;
  if (!state.qualityProfiles.some((p) => p.id === qualityProfileId)) {
    return invalid('QualityProfileId', 'Quality Profile does not exist', qualityProfileId, 'QualityProfileExistsValidator');
  }
  if (!state.metadataProfiles.some((p) => p.id === metadataProfileId)) {
    return invalid('MetadataProfileId', 'Metadata Profile does not exist', metadataProfileId, 'MetadataProfileExistsValidator');
  }
  if (!rootFolderPath && !path) return invalid('Path', "'Path' must not be empty.", null, 'NotEmptyValidator');
  return {
    rootFolderPath: rootFolderPath ?? path!.replace(/\/[^/]+\/?$/, ''),
    ...(path ? { path } : {}),
    qualityProfileId,
    metadataProfileId,
    monitored: body.monitored !== false,
    monitorNewItems: body.monitorNewItems === 'none' || body.monitorNewItems === 'new' ? body.monitorNewItems : 'all',
    tags: Array.isArray(body.tags) ? body.tags.map(Number) : [],
  };
}

const isReply = (x: unknown): x is Reply => typeof x === 'object' && x !== null && 'status' in x && typeof (x as Reply).status === 'number';

function addArtist(state: LidarrFakeState, { body }: RouteRequest): Reply {
  const mbid = typeof body?.foreignArtistId === 'string' ? body.foreignArtistId : '';
  if (!mbid) return invalid('ForeignArtistId', "'Foreign Artist Id' must not be empty.", mbid, 'NotEmptyValidator');
  if (state.library.artistByMbId(mbid)) {
    return invalid('ForeignArtistId', 'This artist has already been added', mbid, 'ArtistExistsValidator');
  }
  const settings = artistSettings(state, body);
  if (isReply(settings)) return settings;
  const entry = state.catalogue.artist(mbid);
  if (!entry) return invalid('MusicbrainzId', 'An artist with this ID was not found', mbid, 'ArtistNotFound');
  const search = body.addOptions?.searchForMissingAlbums === true;
  const artist = state.addArtistFromCatalogue(entry, settings, monitorRule(body), (albums) => {
    const ids = albums.filter((a) => a.monitored).map((a) => a.id);
    if (search && ids.length > 0) state.activity.postCommand({ name: 'AlbumSearch', albumIds: ids });
  });
  state.notify('ArtistAdd', { artistId: artist.id });
  return created(artistResource(state.library, artist));
}

function updateArtist(state: LidarrFakeState, { params, body }: RouteRequest): Reply {
  const artist = state.library.artists.get(Number(params[0]));
  if (!artist) return notFound;
  if (typeof body?.monitored === 'boolean') artist.monitored = body.monitored;
  if (typeof body?.qualityProfileId === 'number') artist.qualityProfileId = body.qualityProfileId;
  if (typeof body?.metadataProfileId === 'number') artist.metadataProfileId = body.metadataProfileId;
  if (typeof body?.monitorNewItems === 'string') artist.monitorNewItems = body.monitorNewItems;
  if (Array.isArray(body?.tags)) artist.tags = body.tags.map(Number);
  if (typeof body?.path === 'string') artist.path = body.path;
  if (typeof body?.rootFolderPath === 'string') artist.rootFolderPath = body.rootFolderPath;
  return accepted(artistResource(state.library, artist));
}

function deleteArtist(state: LidarrFakeState, { params, query }: RouteRequest): Reply {
  const artist = state.library.artists.get(Number(params[0]));
  if (!artist) return notFound;
  const deleteFiles = bool(query, 'deleteFiles');
  const snapshot: ArtistRecord = { ...artist };
  state.library.deleteArtist(artist, deleteFiles);
  state.notify('ArtistDelete', { artist: snapshot, deletedFiles: deleteFiles });
  return ok(undefined);
}

function listAlbums(state: LidarrFakeState, { query }: RouteRequest): Reply {
  const lib = state.library;
  const artistId = num(query, 'artistId');
  const foreignAlbumId = query.get('foreignAlbumId');
  const albumIds = nums(query, 'albumIds');
  let albums: AlbumRecord[];
  if (artistId !== undefined) {
    const artist = lib.artists.get(artistId);
    albums = artist ? lib.albumsOf(artist) : [];
  } else if (foreignAlbumId) {
    const album = lib.albumByMbId(foreignAlbumId);
    albums = album ? [album] : [];
  } else if (albumIds.length > 0) {
    albums = albumIds.map((id) => lib.albums.get(id)).filter((a): a is AlbumRecord => a !== undefined);
  } else {
    albums = [...lib.albums.values()];
  }
  return ok(albums.map((a) => albumResource(lib, a, { withArtist: Boolean(foreignAlbumId) })));
}

function addAlbum(state: LidarrFakeState, { body }: RouteRequest): Reply {
  const lib = state.library;
  const mbid = typeof body?.foreignAlbumId === 'string' ? body.foreignAlbumId : '';
  if (!mbid) return invalid('ForeignAlbumId', "'Foreign Album Id' must not be empty.", mbid, 'NotEmptyValidator');
  if (lib.albumByMbId(mbid)) return invalid('ForeignAlbumId', 'This album has already been added.', mbid, 'AlbumExistsValidator');
  const entry = state.catalogue.album(mbid);
  if (!entry) return invalid('ForeignAlbumId', 'An album with this ID was not found', mbid, 'AlbumNotFound');
  const artistBody = body.artist ?? {};
  let artist =
    (typeof body.artistId === 'number' && body.artistId > 0 ? lib.artists.get(body.artistId) : undefined) ??
    lib.artistByMbId(entry.artist.foreignArtistId);
  if (!artist) {
    const settings = artistSettings(state, artistBody);
    if (isReply(settings)) return settings;
    // Lidarr adds the artist with the rest of its albums unmonitored; they arrive with the metadata.
    artist = state.addArtistFromCatalogue(entry.artist, settings, () => false, undefined, mbid);
  }
  const album = lib.addAlbum(artist, entry.album, body.monitored !== false);
  if (typeof body.anyReleaseOk === 'boolean') album.anyReleaseOk = body.anyReleaseOk;
  if (body.addOptions?.searchForNewAlbum === true) state.activity.postCommand({ name: 'AlbumSearch', albumIds: [album.id] });
  return created(albumResource(lib, album, { withArtist: true }));
}

function updateAlbum(state: LidarrFakeState, { params, body }: RouteRequest): Reply {
  const album = state.library.albums.get(Number(params[0]));
  if (!album) return notFound;
  if (typeof body?.monitored === 'boolean') album.monitored = body.monitored;
  if (typeof body?.anyReleaseOk === 'boolean') album.anyReleaseOk = body.anyReleaseOk;
  if (typeof body?.profileId === 'number') album.profileId = body.profileId;
  return accepted(albumResource(state.library, album, { withArtist: true }));
}

function deleteAlbum(state: LidarrFakeState, { params, query }: RouteRequest): Reply {
  const album = state.library.albums.get(Number(params[0]));
  if (!album) return notFound;
  const deleteFiles = bool(query, 'deleteFiles');
  const artist = state.library.artists.get(album.artistId);
  const snapshot = { ...album };
  state.library.deleteAlbum(album, deleteFiles);
  if (artist) state.notify('AlbumDelete', { artist, album: snapshot, deletedFiles: deleteFiles });
  return ok(undefined);
}

function listTracks(state: LidarrFakeState, { query }: RouteRequest): Reply {
  const lib = state.library;
  const artistId = num(query, 'artistId');
  const albumId = num(query, 'albumId') ?? num(query, 'albumReleaseId');
  const trackIds = nums(query, 'trackIds');
  if (artistId === undefined && albumId === undefined && trackIds.length === 0) {
    return badRequest('One of artistId, albumId, albumReleaseId or trackIds must be provided');
  }
  const out: unknown[] = [];
  if (trackIds.length > 0) {
    for (const id of trackIds) {
      const at = lib.locateTrack(id);
      if (at) out.push(trackResource(lib, at.album, at.index));
    }
    return ok(out);
  }
  const artist = artistId !== undefined ? lib.artists.get(artistId) : undefined;
  const albums = albumId !== undefined ? [lib.albums.get(albumId)] : artist ? lib.albumsOf(artist) : [];
  for (const album of albums) {
    if (album) for (let i = 0; i < album.trackCount; i++) out.push(trackResource(lib, album, i));
  }
  return ok(out);
}

function listTrackFiles(state: LidarrFakeState, { query }: RouteRequest): Reply {
  const lib = state.library;
  const artistId = num(query, 'artistId');
  const albumIds = nums(query, 'albumId');
  const fileIds = nums(query, 'trackFileIds');
  if (artistId === undefined && albumIds.length === 0 && fileIds.length === 0 && !query.has('unmapped')) {
    return badRequest('artistId, albumId, trackFileIds or unmapped must be provided');
  }
  const out: unknown[] = [];
  if (fileIds.length > 0) {
    for (const id of fileIds) {
      const at = lib.locateFile(id);
      if (at) out.push(trackFileResource(lib, at.album, at.index));
    }
    return ok(out);
  }
  const artist = artistId !== undefined ? lib.artists.get(artistId) : undefined;
  const albums = albumIds.length > 0 ? albumIds.map((id) => lib.albums.get(id)) : artist ? lib.albumsOf(artist) : [];
  for (const album of albums) {
    if (!album?.fileIds) continue;
    for (let i = 0; i < album.trackCount; i++) if (album.fileIds[i]) out.push(trackFileResource(lib, album, i));
  }
  return ok(out);
}

function lookupArtists(state: LidarrFakeState, { query }: RouteRequest): Reply {
  const term = (query.get('term') ?? '').trim();
  const lib = state.library;
  const id = /^(?:lidarr|mbid):\s*(\S+)$/i.exec(term)?.[1];
  if (id) {
    const entry = state.catalogue.artist(id);
    if (entry) return ok([artistLookupResource(lib, entry)]);
    const own = lib.artistByMbId(id);
    return ok(own ? [artistResource(lib, own)] : []);
  }
  if (!term) return ok([]);
  const needle = term.toLowerCase();
  const inLibrary = [...lib.artists.values()].filter((a) => a.artistName.toLowerCase().includes(needle)).slice(0, 25);
  const seen = new Set(inLibrary.map((a) => a.foreignArtistId));
  const fromCatalogue = state.catalogue.searchArtists(term).filter((a) => !seen.has(a.foreignArtistId));
  return ok([...inLibrary.map((a) => artistResource(lib, a)), ...fromCatalogue.map((a) => artistLookupResource(lib, a))]);
}

function lookupAlbums(state: LidarrFakeState, { query }: RouteRequest): Reply {
  const term = (query.get('term') ?? '').trim();
  const lib = state.library;
  const id = /^(?:lidarr|mbid):\s*(\S+)$/i.exec(term)?.[1];
  if (id) {
    const entry = state.catalogue.album(id);
    if (entry) return ok([albumLookupResource(lib, entry.album, entry.artist)]);
    const own = lib.albumByMbId(id);
    return ok(own ? [albumResource(lib, own, { withArtist: true })] : []);
  }
  if (!term) return ok([]);
  return ok(state.catalogue.searchAlbums(term).map((e) => albumLookupResource(lib, e.album, e.artist)));
}

/** POST of a quality or metadata profile: Lidarr refuses a duplicate name. */
function createProfile(list: Array<{ id: number; name: string }>, body: any): Reply {
  const name = typeof body?.name === 'string' ? body.name.trim() : '';
  if (!name) return invalid('Name', "'Name' must not be empty.", name, 'NotEmptyValidator');
  if (list.some((p) => p.name.toLowerCase() === name.toLowerCase())) {
    return invalid('Name', 'Must be unique', name, 'UniqueValidator');
  }
  const profile = { ...body, name, id: list.reduce((m, p) => Math.max(m, p.id), 0) + 1 };
  list.push(profile);
  return created(profile);
}

function byId<T extends { id: number }>(list: (s: LidarrFakeState) => T[], map: (x: T, s: LidarrFakeState) => unknown = (x) => x): Handler {
  return (state, { params }) => {
    const found = list(state).find((x) => x.id === Number(params[0]));
    return found ? ok(map(found, state)) : notFound;
  };
}

function route(method: string, name: string, handle: Handler): Route {
  const source = name.toLowerCase().replace(/\{[^}]+\}/g, '(\\d+)');
  return { method, name: `${method} ${name}`, pattern: new RegExp(`^${source}/?$`), handle };
}

export const routes: Route[] = [
  route('GET', '/system/status', (s) => ok(systemStatus(s.instanceName, s.urlBase, s.startTime))),
  route('GET', '/rootFolder', (s) => ok(s.rootFolders)),
  route('GET', '/rootFolder/{id}', byId((s) => s.rootFolders)),
  route('GET', '/qualityProfile', (s) => ok(s.qualityProfiles)),
  route('GET', '/qualityProfile/{id}', byId((s) => s.qualityProfiles)),
  route('POST', '/qualityProfile', (s, { body }) => createProfile(s.qualityProfiles, body)),
  route('GET', '/metadataProfile', (s) => ok(s.metadataProfiles)),
  route('POST', '/metadataProfile', (s, { body }) => createProfile(s.metadataProfiles, body)),
  route('GET', '/metadataProfile/{id}', byId((s) => s.metadataProfiles)),
  route('GET', '/tag', (s) => ok(s.tags)),
  route('GET', '/tag/{id}', byId((s) => s.tags)),
  route('POST', '/tag', (s, { body }) => {
    const label = String(body?.label ?? '').toLowerCase();
    if (!label) return invalid('Label', "'Label' must not be empty.", label, 'NotEmptyValidator');
    const existing = s.tags.find((t) => t.label === label);
    if (existing) return created(existing);
    const tag = { id: s.tags.reduce((m, t) => Math.max(m, t.id), 0) + 1, label };
    s.tags.push(tag);
    return created(tag);
  }),
  route('GET', '/artist/lookup', lookupArtists),
  route('GET', '/artist', (s, { query }) => {
    const mbId = query.get('mbId');
    const lib = s.library;
    if (mbId) {
      const a = lib.artistByMbId(mbId);
      return ok(a ? [artistResource(lib, a)] : []);
    }
    return ok([...lib.artists.values()].map((a) => artistResource(lib, a)));
  }),
  route('GET', '/artist/{id}', (s, { params }) => {
    const a = s.library.artists.get(Number(params[0]));
    return a ? ok(artistResource(s.library, a)) : notFound;
  }),
  route('POST', '/artist', addArtist),
  route('PUT', '/artist/{id}', updateArtist),
  route('DELETE', '/artist/{id}', deleteArtist),
  route('GET', '/album/lookup', lookupAlbums),
  route('GET', '/album', listAlbums),
  route('PUT', '/album/monitor', (s, { body }) => {
    const ids: number[] = Array.isArray(body?.albumIds) ? body.albumIds.map(Number) : [];
    const albums = ids.map((id) => s.library.albums.get(id)).filter((a): a is AlbumRecord => a !== undefined);
    for (const a of albums) a.monitored = body?.monitored === true;
    return accepted(albums.map((a) => albumResource(s.library, a)));
  }),
  route('GET', '/album/{id}', (s, { params }) => {
    const a = s.library.albums.get(Number(params[0]));
    return a ? ok(albumResource(s.library, a, { withArtist: true })) : notFound;
  }),
  route('POST', '/album', addAlbum),
  route('PUT', '/album/{id}', updateAlbum),
  route('DELETE', '/album/{id}', deleteAlbum),
  route('GET', '/track', listTracks),
  route('GET', '/track/{id}', (s, { params }) => {
    const at = s.library.locateTrack(Number(params[0]));
    return at ? ok(trackResource(s.library, at.album, at.index)) : notFound;
  }),
  route('GET', '/trackFile', listTrackFiles),
  route('GET', '/trackFile/{id}', (s, { params }) => {
    const at = s.library.locateFile(Number(params[0]));
    return at ? ok(trackFileResource(s.library, at.album, at.index)) : notFound;
  }),
  route('POST', '/command', (s, { body }) => {
    if (typeof body?.name !== 'string' || !body.name) return badRequest('Command name is required');
    return created(s.activity.commandResource(s.activity.postCommand(body)));
  }),
  route('GET', '/command', (s) => ok(s.activity.commands.map((c) => s.activity.commandResource(c)))),
  route('GET', '/command/{id}', byId((s) => s.activity.commands, (c, s) => s.activity.commandResource(c))),
  route('GET', '/queue', (s, { query }) => {
    const include = { artist: bool(query, 'includeArtist'), album: bool(query, 'includeAlbum') };
    return paged(query, s.activity.queue, { sortKey: 'timeleft', sortDirection: 'ascending' }, (q) => s.activity.queueResource(q, include));
  }),
  route('GET', '/queue/{id}', byId((s) => s.activity.queue, (q, s) => s.activity.queueResource(q, {}))),
  route('GET', '/history', (s, { query }) => {
    const include = { artist: bool(query, 'includeArtist'), album: bool(query, 'includeAlbum') };
    const albumId = num(query, 'albumId');
    const downloadId = query.get('downloadId');
    const all = s.activity.history
      .filter((h) => (albumId === undefined || h.albumId === albumId) && (!downloadId || h.downloadId === downloadId))
      .sort((a, b) => a.date.localeCompare(b.date) || a.id - b.id);
    return paged(query, all, { sortKey: 'date', sortDirection: 'descending' }, (h) => s.activity.historyResource(h, include));
  }),
  route('GET', '/wanted/missing', (s, { query }) => {
    const monitored = query.get('monitored')?.toLowerCase() !== 'false';
    const all = [...s.library.albums.values()]
      .filter((a) => a.monitored === monitored && a.fileCount < a.trackCount)
      .sort((a, b) => a.releaseDate.localeCompare(b.releaseDate));
    const withArtist = bool(query, 'includeArtist');
    return paged(query, all, { sortKey: 'releaseDate', sortDirection: 'descending' }, (a) => albumResource(s.library, a, { withArtist }));
  }),
];
