import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { downloads } from '../../db/downloads.js';
import { trackFileLookup } from '../../db/flowQueries.js';
import { flows, type FlowRow } from '../../db/flows.js';
import type { Principal } from '../auth/principal.js';
import { downloadsRoot, isInside, safeSegment, type Deps as DownloadsLayoutDeps } from '../downloads/layout.js';
import { canSeeAllJobs } from '../downloads/service.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { type PlaylistRef, type PlaylistRegistry } from '../playlists/registry.js';
import type { Kernel } from '../../kernel.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'db'> & { playlists: PlaylistRegistry } & DownloadsLayoutDeps;

/**
 * Playlist files for file-based players (reference §5: the legacy Navidrome integration wrote `.m3u`
 * playlists and `.nsp` smart playlists into the flow folder). For each playlist this writes, into
 * `<downloads root>/flow-playlists/`:
 *
 * - `<owner> - <name> (<id8>).m3u8`: `#EXTM3U`, the name, and the downloaded tracks in playlist order,
 *   as paths relative to the folder (absolute for a reused library file outside the downloads root);
 * - `<owner> - <name> (<id8>).nsp`: a Navidrome smart playlist (JSON rules) matching the same files by
 *   `filepath`, relative to the downloads root, i.e. right when Navidrome's library is that root.
 *
 * Writes are atomic (a temporary file in the same folder, then a rename), happen only inside the
 * downloads root (the folder's real path is checked, so a link cannot lead out), and are idempotent:
 * a file whose content would not change is not rewritten, and files of the same playlist under an
 * older name (it was renamed) are removed.
 */

export const PLAYLIST_FILES_DIR = 'flow-playlists';

interface Entry {
  file: string;
  artist: string;
  title: string;
  durationMs: number | null;
}

export interface WrittenFile {
  path: string;
  written: boolean;
}

function folderOf(ctx: Deps): { root: string; dir: string } {
  const root = downloadsRoot(ctx);
  const dir = path.join(root, PLAYLIST_FILES_DIR);
  fs.mkdirSync(dir, { recursive: true });
  const realRoot = fs.realpathSync(root);
  const realDir = fs.realpathSync(dir);
  if (!isInside(realRoot, realDir) || realDir === realRoot) throw new Error('the playlist folder lies outside the downloads root');
  return { root, dir };
}

/** Downloaded files of a flow's current run, in playlist order. */
function flowEntries(ctx: Deps, f: FlowRow): Entry[] {
  if (f.currentRunId === null) return [];
  const out: Entry[] = [];
  for (const t of flows.tracks(ctx.db, f.currentRunId)) {
    if (t.state !== 'queued' || t.jobId === null) continue;
    const j = downloads.get(ctx.db, t.jobId);
    if (!j || j.status !== 'done' || !j.finalPath) continue;
    out.push({ file: path.resolve(j.finalPath), artist: j.artistName, title: j.trackName, durationMs: j.durationMs });
  }
  return out;
}

/** Library files of a static or shared playlist, in playlist order. */
function libraryEntries(ctx: Deps, ref: PlaylistRef): Entry[] {
  const fileOf = trackFileLookup(ctx.db);
  return ctx.playlists
    .trackIds(ref)
    .map((id): Entry | undefined => fileOf(id))
    .filter((e): e is Entry => e !== undefined)
    .map((e) => ({ ...e, file: path.resolve(e.file) }));
}

function m3u8(name: string, dir: string, root: string, entries: Entry[]): string {
  const lines = ['#EXTM3U', `#PLAYLIST:${name.replace(/[\r\n]/g, ' ')}`];
  for (const e of entries) {
    const secs = e.durationMs ? Math.round(e.durationMs / 1000) : -1;
    lines.push(`#EXTINF:${secs},${`${e.artist} - ${e.title}`.replace(/[\r\n]/g, ' ')}`);
    lines.push(isInside(root, e.file) ? path.relative(dir, e.file).split(path.sep).join('/') : e.file);
  }
  return `${lines.join('\n')}\n`;
}

function nsp(name: string, comment: string, root: string, entries: Entry[]): string {
  const inRoot = entries.filter((e) => isInside(root, e.file)).map((e) => path.relative(root, e.file).split(path.sep).join('/'));
  // A playlist with nothing downloaded yet matches nothing (an empty `any` is not a rule Navidrome documents).
  const rules = inRoot.length > 0 ? { any: inRoot.map((p) => ({ is: { filepath: p } })) } : { all: [{ is: { filepath: `${PLAYLIST_FILES_DIR}/-` } }] };
  return `${JSON.stringify({ name, comment, ...rules, sort: 'title', order: 'asc', limit: Math.max(1, entries.length) }, null, 2)}\n`;
}

/** Writes `content` to `file` atomically unless it already holds exactly that. */
function writeAtomic(file: string, content: string): boolean {
  try {
    if (fs.readFileSync(file, 'utf8') === content) return false;
  } catch {
    // missing: written below
  }
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`);
  try {
    fs.writeFileSync(tmp, content, { flag: 'wx' });
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  return true;
}

function writeFor(ctx: Deps, ref: PlaylistRef, entries: Entry[]): WrittenFile[] {
  const { root, dir } = folderOf(ctx);
  const tag = `(${ref.id.replace(/[^0-9a-zA-Z]/g, '').slice(0, 8)})`;
  const base = `${safeSegment(ref.owner || 'shared', 'shared')} - ${safeSegment(ref.name, 'Playlist')} ${tag}`.slice(0, 200);
  const out: WrittenFile[] = [];
  const files = { [`${base}.m3u8`]: m3u8(ref.name, dir, root, entries), [`${base}.nsp`]: nsp(ref.name, ref.comment ?? '', root, entries) };
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name);
    if (!isInside(dir, file)) throw new Error('refusing a playlist file outside the playlist folder');
    out.push({ path: file, written: writeAtomic(file, content) });
  }
  // The same playlist under an older name (renamed since): its files go.
  for (const old of fs.readdirSync(dir)) {
    if (old.includes(` ${tag}.`) && /\.(m3u8|nsp)$/.test(old) && !(old in files)) fs.rmSync(path.join(dir, old), { force: true });
  }
  return out;
}

/**
 * POST /api/playlists/playlist/:playlistType/create. `playlistType` is what the reference calls a
 * job's playlist type: a flow id, a static or shared playlist id; `flow` (or `all`) means every flow
 * the caller sees. `library` holds single tracks, not a playlist: 400. Unknown or not visible: 404.
 */
export function writePlaylistFiles(ctx: Deps, principal: Principal, playlistType: string) {
  const viewer = { id: principal.userId, role: principal.role };
  const registry = ctx.playlists;
  if (playlistType === 'library') throw new ValidationError('library is not a playlist: choose a flow or playlist id, or "flow" for every flow');
  let refs: PlaylistRef[];
  if (playlistType === 'flow' || playlistType === 'all') {
    refs = flows.list(ctx.db, canSeeAllJobs(principal) ? undefined : (principal.userId ?? -1)).map((f) => registry.find(f.id)!).filter(Boolean);
  } else {
    const ref = registry.find(playlistType);
    if (!ref || !(registry.canSee(ref, viewer) || (ref.kind === 'flow' && canSeeAllJobs(principal)))) throw new NotFoundError('Playlist not found', `No flow or playlist ${playlistType}`);
    refs = [ref];
  }
  const files: (WrittenFile & { playlistId: string })[] = [];
  for (const ref of refs) {
    const entries = ref.kind === 'flow' ? flowEntries(ctx, flows.get(ctx.db, ref.id)!) : libraryEntries(ctx, ref);
    for (const w of writeFor(ctx, ref, entries)) files.push({ ...w, playlistId: ref.id });
  }
  const { root } = folderOf(ctx);
  return {
    success: true,
    playlistType,
    folder: PLAYLIST_FILES_DIR,
    files: files.map((f) => ({ playlistId: f.playlistId, path: path.relative(root, f.path).split(path.sep).join('/'), written: f.written })),
  };
}
