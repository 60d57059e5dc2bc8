import type { TestServer } from '../helpers/server.js';
import { startPlexServerFake, startPlexTvFake, type PlexServerFake, type PlexTvFake } from '../fakes/plex/index.js';

export interface PlexFakes {
  tv: PlexTvFake;
  pms: PlexServerFake;
  /** The administrator's plex.tv account token. */
  ownerToken: string;
  /** The Den server's own access token (what plex.tv's resources hand out for it). */
  serverToken: string;
  close(): Promise<void>;
}

export const PLEX_APP_URL = 'http://app.plex.test';

/** plex.tv with an owner account that sees one server (the PMS fake), which accepts only its own token. */
export async function startPlexFakes(): Promise<PlexFakes> {
  const [tv, pms] = await Promise.all([startPlexTvFake(), startPlexServerFake()]);
  const ownerToken = tv.addAccount({ username: 'owner', title: 'Owner' });
  const serverToken = 'den-server-token-5f2c';
  pms.tokens.add(serverToken);
  tv.servers = [{ name: 'Den', clientIdentifier: pms.machineIdentifier, accessToken: serverToken, owned: true, ownerToken, uri: pms.url }];
  return { tv, pms, ownerToken, serverToken, close: async () => void (await Promise.all([tv.close(), pms.close()])) };
}

/**
 * Gives a plex.tv account (a friend's token, or a Plex Home user's switched token) access to the Den
 * server: plex.tv lists Den to it with a server token of its own, which the server knows as that user.
 */
export function shareDen(f: PlexFakes, plexTvToken: string, user: string): string {
  const token = `den-${user}-token-${Math.random().toString(36).slice(2, 8)}`;
  f.pms.userTokens.set(token, user);
  f.tv.share(plexTvToken, f.pms.machineIdentifier, token);
  return token;
}

export function plexEnv(f: PlexFakes): Record<string, string> {
  return { TONEARM_PLEXTV_URL: f.tv.url, TONEARM_PLEX_APP_URL: PLEX_APP_URL };
}

export async function body(res: Response): Promise<any> {
  const text = await res.text();
  return text ? JSON.parse(text) : undefined;
}

/** Connects the server's Plex account through the whole PIN flow (start, approve on plex.tv, check). */
export async function connectPlex(s: TestServer, f: PlexFakes): Promise<void> {
  const pin = await body(await s.api('/api/settings/plex/auth/pin', { method: 'POST', token: s.admin.token, json: {} }));
  f.tv.approve(pin.pinId, f.ownerToken);
  const done = await body(await s.api('/api/settings/plex/auth/check', { method: 'POST', token: s.admin.token, json: { pinId: pin.pinId, code: pin.code } }));
  if (!done.linked) throw new Error(`Plex not connected: ${JSON.stringify(done)}`);
}

/** A plain user account and its session token. */
export async function createUser(s: TestServer, username: string): Promise<{ id: number; token: string }> {
  const password = `${username}-password-1`;
  const made = await s.api('/api/users', { method: 'POST', token: s.admin.token, json: { username, password } });
  if (made.status !== 201) throw new Error(`creating ${username} answered ${made.status}`);
  const { id } = await body(made);
  const login = await body(await s.api('/api/auth/login', { method: 'POST', json: { username, password } }));
  return { id, token: login.token as string };
}
