/** The path prefix the server is served under, and the links built on it. Pure: no imports. */
/**
 * `/music`, `music/`, `/music//` → `/music`; '' and '/' → '' (the root). Null when it is not a plain
 * path (a query, a fragment, `..`, characters a URL would have to escape).
 */
export function normalizeBasePath(value: string): string | null {
  const segments = value.trim().split('/').filter(Boolean);
  if (segments.some((s) => s === '.' || s === '..' || !/^[A-Za-z0-9._~-]+$/.test(s))) return null;
  return segments.length ? `/${segments.join('/')}` : '';
}

/**
 * Where people reach this server, base path included, without a trailing slash: TONEARM_PUBLIC_URL
 * (with the base path added unless it already ends with it), else the request's own origin plus
 * the base path. Links sent elsewhere (OpenID and Last.fm callbacks, share links, feeds) start here.
 */
export function externalBase(config: { publicUrl: string | null; basePath: string }, origin: string): string {
  if (config.publicUrl) return config.publicUrl.endsWith(config.basePath) ? config.publicUrl : config.publicUrl + config.basePath;
  return origin + config.basePath;
}
