export { PlexTvClient, plexAuthUrl, type PlexAccount, type PlexConnection, type PlexHomeUser, type PlexPin, type PlexResource } from './plexTv.js';
export {
  libraryUri,
  MUSIC_SECTION_TYPE,
  PlexServerClient,
  TRACK_PAGE_SIZE,
  type PlexIdentity,
  type PlexPlaylist,
  type PlexPlaylistItem,
  type PlexSection,
  type PlexTrack,
  type PlexTracksPage,
} from './mediaServer.js';
export { errorSummary, parsePlexXml, plexHeaders, type PlexProduct } from './transport.js';
