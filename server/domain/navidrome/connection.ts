import { NavidromeClient } from '../../integrations/navidrome/index.js';

/** The settings screen's Navidrome check: a Subsonic ping with token authentication. */
export async function testNavidrome(url: string, username: string, password: string) {
  const info = await new NavidromeClient({ baseUrl: url, username, password, timeoutMs: 10_000 }).testConnection();
  return {
    success: true as const,
    version: info.version,
    type: info.type ?? null,
    serverVersion: info.serverVersion ?? null,
    message: `Connected to ${info.type ?? 'Subsonic server'} ${info.serverVersion ?? info.version}`,
  };
}
