export { NavidromeClient } from './client.js';
export type {
  NavidromeClientOptions,
  NavidromeConnectionOk,
  SubsonicPlaylist,
  SubsonicPlaylistWithSongs,
  SubsonicScanStatus,
  SubsonicServerInfo,
  SubsonicSong,
} from './client.js';
