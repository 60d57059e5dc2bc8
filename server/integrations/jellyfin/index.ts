export { JellyfinClient, audioOf } from './client.js';
export type { JellyfinAudio, JellyfinClientOptions, JellyfinEntry, JellyfinPlaylist, JellyfinSystemInfo, JellyfinTask, JellyfinUser } from './client.js';
