import path from 'node:path';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'config'> & { settings: SettingsStore };

/**
 * Where downloaded music lives: `<downloads root>/<Artist>/<Album>/<NN Title>.<ext>`, with each
 * job's work under `<downloads root>/.staging/<jobId>/`. The root is the `downloads.folderPath`
 * setting, or `<data folder>/downloads` when it is empty. Names from sources and tags never choose
 * where a file goes: every segment is cleaned so it cannot climb out of the root.
 */

/** Hidden, so library scans and watchers skip it. */
export const STAGING_DIR = '.staging';

export function downloadsRoot(ctx: Deps): string {
  const configured = ctx.settings.get().downloads.folderPath.trim();
  return path.resolve(configured || path.join(ctx.config.dataDir, 'downloads'));
}

export function stagingDir(root: string, jobId: number): string {
  return path.join(root, STAGING_DIR, String(jobId));
}

const RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i;

/**
 * File systems limit a name to 255 bytes (not characters). A segment is cut well below that, so a
 * file name keeps room for its track number, its extension, a " (2)" and the temporary name a job
 * writes first (`.<name>.tonearm-<jobId>.part`): 120 CJK characters are 360 bytes in UTF-8.
 */
export const SEGMENT_MAX_BYTES = 180;
const SEGMENT_MAX_CHARS = 120;

/** The longest start of `s` of at most `maxBytes` UTF-8 bytes, never cutting a character in two. */
function clipBytes(s: string, maxBytes: number): string {
  if (Buffer.byteLength(s, 'utf8') <= maxBytes) return s;
  let out = '';
  let bytes = 0;
  for (const ch of s) {
    const n = Buffer.byteLength(ch, 'utf8');
    if (bytes + n > maxBytes) break;
    out += ch;
    bytes += n;
  }
  return out;
}

/**
 * One path segment from a name: no separators, no control characters, no characters Windows
 * refuses, no leading dots (so never `.` or `..`), at most 120 characters and 180 UTF-8 bytes;
 * `fallback` when nothing is left.
 */
export function safeSegment(name: string | null | undefined, fallback: string): string {
  let s = (name ?? '')
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .replace(/[/\\:*?"<>|]/g, '_')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '')
    .replace(/[. ]+$/, '');
  if (RESERVED.test(s)) s = `_${s}`;
  if (s.length > SEGMENT_MAX_CHARS) s = [...s].slice(0, SEGMENT_MAX_CHARS).join('');
  s = clipBytes(s, SEGMENT_MAX_BYTES).replace(/[. ]+$/, '').trim();
  return s || fallback;
}

/** The library path of a finished track; always inside `root`. */
export function finalPath(
  root: string,
  t: { artistName: string; albumName: string | null; trackName: string; trackNumber: number | null; discNumber?: number | null },
  ext: string,
): string {
  const artist = safeSegment(t.artistName, 'Unknown Artist');
  const album = safeSegment(t.albumName, 'Singles');
  const num = t.trackNumber && t.trackNumber > 0 ? `${t.discNumber && t.discNumber > 1 ? `${t.discNumber}-` : ''}${String(t.trackNumber).padStart(2, '0')} ` : '';
  const cleanExt = ext.replace(/^\./, '').toLowerCase().replace(/[^a-z0-9]/g, '').slice(0, 16) || 'bin';
  const file = `${num}${safeSegment(t.trackName, 'Untitled')}.${cleanExt}`;
  const full = path.join(root, artist, album, file);
  if (!isInside(root, full)) throw new Error('refusing a path outside the downloads root');
  return full;
}

/** True when `p` is `root` itself or lies under it (lexically; callers resolve links where it matters). */
export function isInside(root: string, p: string): boolean {
  const rel = path.relative(path.resolve(root), path.resolve(p));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
