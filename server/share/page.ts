import type { ShareRow } from '../db/shares.js';

/** The public share pages: plain HTML with the browser's own audio player, no script (the CSP allows none inline). */

export interface SharedTrack {
  /** Subsonic track id, which names the stream under the share. */
  id: string;
  title: string;
  artist: string;
  album: string | null;
  durationMs: number;
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

function duration(ms: number): string {
  const total = Math.round(ms / 1000);
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#222;background:#fafafa}
h1{font-size:1.4rem;margin-bottom:.2rem}p.muted{color:#666;margin-top:0}ol{padding-left:1.4rem}li{margin:.9rem 0}
.meta{color:#555;font-size:.9rem}audio{display:block;width:100%;margin-top:.3rem}`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>${body}</body></html>
`;
}

/** `basePath`: the prefix the server is served under (TONEARM_BASE_PATH), '' at the root. */
export function sharePage(share: ShareRow, tracks: SharedTrack[], basePath = ''): string {
  const title = share.description.trim() || `Music shared by ${share.owner}`;
  const expiry = share.expires_at !== null ? ` · until ${new Date(share.expires_at).toUTCString()}` : '';
  const items = tracks
    .map(
      (t) => `<li><strong>${escapeHtml(t.title)}</strong> <span class="meta">${escapeHtml(t.artist)}${t.album ? ` · ${escapeHtml(t.album)}` : ''} · ${duration(t.durationMs)}</span>
<audio controls preload="none" src="${basePath}/share/${share.id}/${encodeURIComponent(t.id)}"></audio></li>`,
    )
    .join('\n');
  const list = tracks.length > 0 ? `<ol>\n${items}\n</ol>` : '<p>Nothing in this share can be played any more.</p>';
  return layout(title, `<h1>${escapeHtml(title)}</h1><p class="muted">Shared by ${escapeHtml(share.owner)}${expiry}</p>\n${list}`);
}

export function expiredPage(): string {
  return layout('Share expired', '<h1>This share has expired</h1><p class="muted">Ask the person who shared it for a new link.</p>');
}

export function missingPage(): string {
  return layout('Share not found', '<h1>There is no such share</h1><p class="muted">The link is wrong, the share was deleted, or sharing is turned off on this server.</p>');
}
