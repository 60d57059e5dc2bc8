/**
 * The path prefix the server is served under (TONEARM_BASE_PATH, e.g. `/music`), read from the
 * `<meta name="tonearm-base">` the server adds to index.html; '' at the root (and in screen tests).
 * The UI's own paths (`/api/...`, `/library/...`) and the paths in API answers are written without
 * it: `withBase` adds it where a URL reaches the browser, `stripBase` takes it off the address bar.
 */
function readBase(): string {
  if (typeof document === 'undefined') return '';
  const content = document.querySelector('meta[name="tonearm-base"]')?.getAttribute('content') ?? '';
  return content.replace(/\/+$/, '');
}

export const BASE = readBase();

/** `/api/x` → `/music/api/x`; full URLs, protocol-relative ones and relative ones stay as they are. */
export function withBase(path: string): string;
export function withBase(path: string | null | undefined): string | null | undefined;
export function withBase(path: string | null | undefined): string | null | undefined {
  if (!path || !BASE || !path.startsWith('/') || path.startsWith('//')) return path;
  return BASE + path;
}

/** `/music/library` → `/library`: the address bar's path as the UI's routes see it. */
export function stripBase(pathname: string): string {
  if (!BASE) return pathname;
  if (pathname === BASE) return '/';
  return pathname.startsWith(`${BASE}/`) ? pathname.slice(BASE.length) : pathname;
}
