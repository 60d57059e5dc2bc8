/** Pure parts of the "Playback destinations" card (tested in test/renderer/playbackLogic.test.ts). */

import type { Answer } from '../wire.js';

export const SECRET_MASK = '********';

/** One destination as GET /api/settings/playback reports it (the route's own type). */
export type PlaybackDestination = Answer<'/api/settings/playback'>['destinations'][number];

export interface PlaybackTestAnswer {
  success: true;
  message: string;
  authentication: 'token' | 'password';
  canScan: boolean;
  playlists: number;
}

/** What the card edits: the connection (integrations.navidrome) and what to publish (playback.navidrome). */
export interface PlaybackDraft {
  enabled: boolean;
  url: string;
  username: string;
  /** The mask while the saved password is kept; anything else replaces it. */
  password: string;
  publishFlows: boolean;
  publishPlaylists: boolean;
  ownerPrefix: 'auto' | 'always' | 'never';
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});

/** The draft from GET /api/settings (the password arrives masked, or empty when none is saved). */
export function draftFrom(settings: unknown, key = 'navidrome'): PlaybackDraft {
  const s = obj(settings);
  const c = obj(obj(s.integrations)[key]);
  const p = obj(obj(s.playback)[key]);
  return {
    url: typeof c.url === 'string' ? c.url : '',
    username: typeof c.username === 'string' ? c.username : '',
    password: typeof c.password === 'string' ? c.password : '',
    ...publishingFrom(p),
  };
}

/** What every destination stores about publishing (`playback.<key>`). */
function publishingFrom(p: Json): Pick<PlaybackDraft, 'enabled' | 'publishFlows' | 'publishPlaylists' | 'ownerPrefix'> {
  return {
    enabled: p.enabled === true,
    publishFlows: p.publishFlows !== false,
    publishPlaylists: p.publishPlaylists !== false,
    ownerPrefix: p.ownerPrefix === 'always' || p.ownerPrefix === 'never' ? p.ownerPrefix : 'auto',
  };
}

/** What is wrong with a typed address (an empty one is allowed), or null. */
function addressProblem(url: string, example: string): string | null {
  if (url === '') return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `Address: enter a URL like ${example}`;
  }
  return parsed.protocol !== 'http:' && parsed.protocol !== 'https:' ? 'Address: must start with http:// or https://' : null;
}

/** Checks the draft; null when it can be saved, else what to fix. */
export function draftProblem(d: PlaybackDraft): string | null {
  const url = d.url.trim();
  const address = addressProblem(url, 'http://nas:4533');
  if (address) return address;
  if (d.enabled && (url === '' || d.username.trim() === '' || d.password === '')) return 'To publish, enter the address, user name and password';
  return null;
}

/**
 * The POST /api/settings patch: the masked password is sent back as the mask (the server keeps the
 * saved one, and refuses it for another address: then it must be typed again).
 */
export function settingsPatch(d: PlaybackDraft, key = 'navidrome'): Json {
  return {
    integrations: { [key]: { url: d.url.trim(), username: d.username.trim(), password: d.password } },
    playback: { [key]: { enabled: d.enabled, publishFlows: d.publishFlows, publishPlaylists: d.publishPlaylists, ownerPrefix: d.ownerPrefix } },
  };
}

/** The test request body: what is typed; the mask (or nothing) means "the saved password". */
export function playbackTestBody(d: PlaybackDraft): Record<string, string> {
  const out: Record<string, string> = {};
  if (d.url.trim()) out.url = d.url.trim();
  if (d.username.trim()) out.username = d.username.trim();
  if (d.password && d.password !== SECRET_MASK) out.password = d.password;
  return out;
}

/** The status line under the card's title. */
export function statusLine(dest: PlaybackDestination | undefined, now = Date.now()): { tone: 'success' | 'warn' | 'info'; text: string } {
  if (!dest) return { tone: 'info', text: 'Status unknown' };
  if (!dest.configured) return { tone: 'info', text: 'Not configured' };
  if (!dest.enabled) return { tone: 'info', text: 'Publishing is off' };
  const lists = `${dest.published} playlist${dest.published === 1 ? '' : 's'} published`;
  const when = dest.lastPublishedAt ? `, last ${ago(Date.parse(dest.lastPublishedAt), now)}` : '';
  if (dest.lastError && dest.pending > 0) {
    return { tone: 'warn', text: `${dest.pending} waiting to be published: ${dest.lastError}` };
  }
  if (dest.pending > 0) return { tone: 'info', text: `${lists}; ${dest.pending} being published` };
  return { tone: 'success', text: `${lists}${when}` };
}

/** How a successful test reads. */
export function testText(answer: PlaybackTestAnswer): { tone: 'success' | 'warn'; text: string } {
  const auth = answer.authentication === 'password' ? ' The server does not take tokens: the password is sent (hex-encoded) with each request.' : '';
  return { tone: answer.canScan ? 'success' : 'warn', text: `${answer.message}.${auth}` };
}

export function ago(then: number, now: number): string {
  const s = Math.max(0, Math.round((now - then) / 1000));
  if (s < 60) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.round(h / 24)} days ago`;
}

/** The Plex card edits what to publish (playback.plex); the connection itself is chosen in Settings → Library → Plex. */
export interface PlexPlaybackDraft {
  enabled: boolean;
  publishFlows: boolean;
  publishPlaylists: boolean;
  ownerPrefix: 'auto' | 'always' | 'never';
}

/** The Plex draft from GET /api/settings, and what of the connection is chosen (server and music library). */
export function plexDraftFrom(settings: unknown): { draft: PlexPlaybackDraft; server: string; library: string } {
  const s = obj(settings);
  const c = obj(obj(s.integrations).plex);
  const p = obj(obj(s.playback).plex);
  const prefix = p.ownerPrefix === 'always' || p.ownerPrefix === 'never' ? p.ownerPrefix : 'auto';
  return {
    draft: { enabled: p.enabled === true, publishFlows: p.publishFlows !== false, publishPlaylists: p.publishPlaylists !== false, ownerPrefix: prefix },
    server: typeof c.serverName === 'string' && c.serverName ? c.serverName : typeof c.url === 'string' ? c.url : '',
    library: typeof c.librarySectionId === 'string' ? c.librarySectionId : '',
  };
}

export function plexSettingsPatch(d: PlexPlaybackDraft): Json {
  return { playback: { plex: { enabled: d.enabled, publishFlows: d.publishFlows, publishPlaylists: d.publishPlaylists, ownerPrefix: d.ownerPrefix } } };
}

/** Why the Plex destination cannot publish yet (null when a server and a music library are chosen). */
export function plexProblem(d: PlexPlaybackDraft, chosen: { server: string; library: string }): string | null {
  if (!d.enabled) return null;
  if (!chosen.server) return 'To publish to Plex, connect Plex and choose a server first (Settings → Library → Plex)';
  if (!chosen.library) return 'To publish to Plex, choose its music library first (Settings → Library → Plex)';
  return null;
}

/** The Jellyfin card edits `playback.jellyfin`: the connection and what to publish in one block. */
export interface JellyfinDraft {
  enabled: boolean;
  url: string;
  /** The mask while the saved key is kept; anything else replaces it. */
  apiKey: string;
  /** The Jellyfin user playlists go to; '' = Jellyfin's first administrator. */
  userId: string;
  publishFlows: boolean;
  publishPlaylists: boolean;
  ownerPrefix: 'auto' | 'always' | 'never';
}

/** A Jellyfin user, and a Tonearm user's own one, as GET /api/settings/playback/jellyfin/users lists them. */
export type JellyfinUsers = Answer<'/api/settings/playback/jellyfin/users'>;

export function jellyfinDraftFrom(settings: unknown): JellyfinDraft {
  const p = obj(obj(obj(settings).playback).jellyfin);
  return {
    url: typeof p.url === 'string' ? p.url : '',
    apiKey: typeof p.apiKey === 'string' ? p.apiKey : '',
    userId: typeof p.userId === 'string' ? p.userId : '',
    ...publishingFrom(p),
  };
}

export function jellyfinProblem(d: JellyfinDraft): string | null {
  const url = d.url.trim();
  const address = addressProblem(url, 'http://nas:8096');
  if (address) return address;
  if (/\s/.test(d.apiKey.trim())) return 'API key: no spaces';
  if (d.enabled && (url === '' || d.apiKey.trim() === '')) return 'To publish, enter the address and an API key';
  return null;
}

/** The POST /api/settings patch (the masked key goes back as the mask: the server keeps the saved one). */
export function jellyfinSettingsPatch(d: JellyfinDraft): Json {
  return {
    playback: {
      jellyfin: {
        enabled: d.enabled,
        url: d.url.trim(),
        apiKey: d.apiKey.trim(),
        userId: d.userId,
        publishFlows: d.publishFlows,
        publishPlaylists: d.publishPlaylists,
        ownerPrefix: d.ownerPrefix,
      },
    },
  };
}

/** The test request body: what is typed; the mask (or nothing) means "the saved key". */
export function jellyfinTestBody(d: JellyfinDraft): Record<string, string> {
  const out: Record<string, string> = {};
  if (d.url.trim()) out.url = d.url.trim();
  if (d.apiKey.trim() && d.apiKey !== SECRET_MASK) out.apiKey = d.apiKey.trim();
  return out;
}
