export { NavidromeClient } from './client.js';
export type { NavidromeClientOptions, NavidromeConnectionOk, SubsonicServerInfo } from './client.js';
