import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { playlistArtworkRepository, type PlaylistArtworkRow } from '../../db/playlistArtwork.js';
import { SubsonicLibrary } from '../../db/subsonicLibrary.js';
import { CACHE_KEY, ImageCache } from '../../library/imageCache.js';
import { ForbiddenError, NotFoundError } from '../errors.js';
import { drawArtwork, MOSAIC_SIDE, normalizeUpload } from './artworkImages.js';
import { type PlaylistRef, type PlaylistViewer, type PlaylistRegistry } from './registry.js';
import type { Kernel } from '../../kernel.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'config' | 'db' | 'log' | 'onClose'>
  & {
    playlistArtwork: PlaylistArtwork;
    playlists: PlaylistRegistry;
  };

/**
 * Playlist artwork for every kind of playlist (static, flow, shared): an editor uploads a picture
 * (decoded and re-encoded, so only real images are kept) or has one generated — a mosaic of the
 * playlist's album covers with its name, or a gradient with the name when it has none. A generated
 * picture is redrawn (debounced) when the playlist's tracks or name change; any picture goes when
 * the playlist is deleted. Files are JPEG (every Subsonic player decodes it) under
 * `<data dir>/playlist-artwork/`, named by their content hash; the rows are in `playlist_artwork`.
 * The pictures themselves (decoding uploads, drawing, resizing) are made in artworkImages.ts.
 */

/** Uploads larger than this are refused (413). */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/** Bump when the drawing changes, so generated pictures are redrawn on the next change. */
const DRAW_VERSION = 1;
const DEFAULT_DEBOUNCE_MS = 3000;

export interface ArtworkInfo {
  playlistId: string;
  kind: PlaylistRef['kind'];
  source: PlaylistArtworkRow['source'];
  etag: string;
  width: number;
  height: number;
  bytes: number;
  mime: string;
  updatedAt: number;
  /** A URL that changes with the picture, so browsers may cache it for good. */
  url: string;
}

export function artworkUrl(playlistId: string, etag: string): string {
  return `/api/playlists/artwork/${encodeURIComponent(playlistId)}?v=${etag}`;
}

function infoOf(row: PlaylistArtworkRow): ArtworkInfo {
  return {
    playlistId: row.playlist_id,
    kind: row.playlist_kind,
    source: row.source,
    etag: row.etag,
    width: row.width,
    height: row.height,
    bytes: row.bytes,
    mime: row.mime,
    updatedAt: row.updated_at,
    url: artworkUrl(row.playlist_id, row.etag),
  };
}

/** Parses an If-None-Match header against our strong validator. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const v = part.trim().replace(/^W\//, '');
    return v === '*' || v === `"${etag}"` || v === etag;
  });
}

export class PlaylistArtwork {
  readonly dir: string;
  private readonly repo;
  private readonly library;
  private readonly images;
  private readonly pending = new Map<string, { ref: PlaylistRef; timer: NodeJS.Timeout }>();
  private readonly running = new Set<Promise<unknown>>();
  private unsubscribe: (() => void) | null = null;
  debounceMs: number;

  constructor(
    private readonly ctx: Deps,
    options: { debounceMs?: number } = {},
  ) {
    this.dir = path.join(ctx.config.dataDir, 'playlist-artwork');
    this.repo = playlistArtworkRepository(ctx.db);
    this.library = new SubsonicLibrary(ctx.db);
    this.images = new ImageCache(path.join(ctx.config.dataDir, 'images'));
    this.debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  }

  private get registry() {
    return this.ctx.playlists;
  }

  /**
   * Startup housekeeping: rows of static playlists deleted without an event (with their owner's
   * account), and files no row names (a crash between writing a file and its row, temp files).
   */
  sweep(): void {
    for (const file of this.repo.dropOrphanedStatic()) this.unlinkIfUnused(file);
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return;
    }
    const used = this.repo.files();
    for (const name of names) if (!used.has(name)) fs.rmSync(path.join(this.dir, name), { force: true });
  }

  /** Listens to playlist changes: deleted playlists lose their picture; generated ones are redrawn. */
  start(): void {
    if (this.unsubscribe) return;
    try {
      this.sweep();
    } catch (err) {
      this.ctx.log.warn('playlist artwork sweep failed', { err: String(err) });
    }
    this.unsubscribe = this.registry.onChange((change) => {
      const key = `${change.ref.kind}:${change.ref.id}`;
      if (change.type === 'deleted') {
        const p = this.pending.get(key);
        if (p) clearTimeout(p.timer);
        this.pending.delete(key);
        this.drop(change.ref);
        return;
      }
      const row = this.repo.get(change.ref.kind, change.ref.id);
      if (row?.source !== 'generated') return;
      const earlier = this.pending.get(key);
      if (earlier) clearTimeout(earlier.timer);
      const timer = setTimeout(() => this.runPending(key), this.debounceMs);
      timer.unref();
      this.pending.set(key, { ref: change.ref, timer });
    });
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    for (const p of this.pending.values()) clearTimeout(p.timer);
    this.pending.clear();
    await Promise.allSettled([...this.running]);
  }

  /** Runs every waiting redraw now and waits for all of them (tests, shutdown). */
  async settle(): Promise<void> {
    for (const [key, p] of [...this.pending]) {
      clearTimeout(p.timer);
      this.runPending(key);
    }
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Redraws waiting for their debounce. */
  get waiting(): number {
    return this.pending.size;
  }

  private runPending(key: string): void {
    const p = this.pending.get(key);
    if (!p) return;
    this.pending.delete(key);
    const job = this.regenerate(p.ref.id)
      .catch((err) => this.ctx.log.warn('playlist artwork redraw failed', { playlist: p.ref.id, err: String(err) }))
      .finally(() => this.running.delete(job));
    this.running.add(job);
  }

  /** Redraws a generated picture if what it shows changed (the playlist may be gone or uploaded since). */
  private async regenerate(id: string): Promise<void> {
    const ref = this.registry.find(id);
    if (!ref) return;
    const row = this.repo.get(ref.kind, ref.id);
    if (row?.source !== 'generated') return;
    await this.draw(ref, row);
  }

  /** A playlist the viewer may see, else 404 (whether it exists or not). */
  visible(id: string, viewer: PlaylistViewer): PlaylistRef {
    const ref = this.registry.findFor(id, viewer);
    if (!ref) throw new NotFoundError('Playlist not found');
    return ref;
  }

  /** A playlist the viewer may change: 404 when they cannot see it, 403 when they can only read it. */
  editable(id: string, viewer: PlaylistViewer): PlaylistRef {
    const ref = this.visible(id, viewer);
    if (!this.registry.canEdit(ref, viewer)) throw new ForbiddenError("Only the playlist's owner can change its artwork");
    return ref;
  }

  /** The stored picture of a playlist, if any (no permission check). */
  of(ref: PlaylistRef): { info: ArtworkInfo; file: string } | undefined {
    const row = this.repo.get(ref.kind, ref.id);
    if (!row) return undefined;
    const file = path.join(this.dir, row.file);
    if (!fs.existsSync(file)) return undefined;
    return { info: infoOf(row), file };
  }

  info(ref: PlaylistRef): ArtworkInfo | null {
    const row = this.repo.get(ref.kind, ref.id);
    return row ? infoOf(row) : null;
  }

  /** The picture for a viewer, or 404 "Artwork not found". */
  read(id: string, viewer: PlaylistViewer): { info: ArtworkInfo; file: string } {
    const found = this.of(this.visible(id, viewer));
    if (!found) throw new NotFoundError('Artwork not found', 'This playlist has no artwork; upload one or generate it');
    return found;
  }

  async upload(id: string, viewer: PlaylistViewer, bytes: Buffer): Promise<ArtworkInfo> {
    const ref = this.editable(id, viewer);
    const image = await normalizeUpload(bytes);
    // The playlist may have been deleted while the image was decoded.
    const still = this.registry.find(ref.id);
    if (!still) throw new NotFoundError('Playlist not found');
    return this.store(ref, image.data, image.width, image.height, 'uploaded', null);
  }

  async generate(id: string, viewer: PlaylistViewer): Promise<ArtworkInfo> {
    const ref = this.editable(id, viewer);
    return this.draw(ref, undefined, true);
  }

  /** Removes the picture; false when there was none. */
  remove(id: string, viewer: PlaylistViewer): boolean {
    const ref = this.editable(id, viewer);
    return this.drop(ref);
  }

  /** Cover files of the playlist's distinct albums, in playlist order (at most 9). */
  coverFiles(ref: PlaylistRef): string[] {
    const keys: string[] = [];
    const ids = this.registry.trackIds(ref);
    for (let i = 0; i < ids.length && keys.length < 9; i += 200) {
      for (const song of this.library.songs(ids.slice(i, i + 200))) {
        const key = song.album_image ?? song.file_image;
        if (key && CACHE_KEY.test(key) && !keys.includes(key) && fs.existsSync(this.images.fileOf(key))) keys.push(key);
        if (keys.length === 9) break;
      }
    }
    return keys.map((k) => this.images.fileOf(k));
  }

  private async draw(ref: PlaylistRef, row = this.repo.get(ref.kind, ref.id), force = false): Promise<ArtworkInfo> {
    const covers = this.coverFiles(ref);
    const signature = createHash('sha256')
      .update(JSON.stringify({ v: DRAW_VERSION, name: ref.name, covers: covers.map((c) => path.basename(c)) }))
      .digest('hex')
      .slice(0, 32);
    if (!force && row && row.source === 'generated' && row.signature === signature && fs.existsSync(path.join(this.dir, row.file))) return infoOf(row);
    const data = await drawArtwork(ref.name, covers);
    if (!this.registry.find(ref.id)) throw new NotFoundError('Playlist not found');
    // An upload that landed while this one was drawn wins over a background redraw.
    const now = this.repo.get(ref.kind, ref.id);
    if (!force && now?.source === 'uploaded') return infoOf(now);
    return this.store(ref, data, MOSAIC_SIDE, MOSAIC_SIDE, 'generated', signature);
  }

  private async store(ref: PlaylistRef, data: Buffer, width: number, height: number, source: 'uploaded' | 'generated', signature: string | null): Promise<ArtworkInfo> {
    const etag = createHash('sha256').update(data).digest('hex').slice(0, 32);
    const name = `${etag}.jpg`;
    const file = path.join(this.dir, name);
    if (!fs.existsSync(file)) {
      await fs.promises.mkdir(this.dir, { recursive: true });
      const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      await fs.promises.writeFile(tmp, data);
      await fs.promises.rename(tmp, file);
    }
    const previous = this.repo.get(ref.kind, ref.id);
    const row: PlaylistArtworkRow = {
      playlist_kind: ref.kind,
      playlist_id: ref.id,
      source,
      file: name,
      mime: 'image/jpeg',
      width,
      height,
      bytes: data.length,
      etag,
      signature,
      // Last-Modified has one-second resolution: keep it moving forward when the picture changes.
      updated_at: Math.max(this.ctx.clock.now(), previous && previous.etag !== etag ? previous.updated_at + 1000 : 0),
    };
    this.repo.put(row);
    if (previous && previous.file !== name) this.unlinkIfUnused(previous.file);
    return infoOf(row);
  }

  private drop(ref: Pick<PlaylistRef, 'kind' | 'id'>): boolean {
    const row = this.repo.get(ref.kind, ref.id);
    if (!row) return false;
    this.repo.remove(ref.kind, ref.id);
    this.unlinkIfUnused(row.file);
    return true;
  }

  private unlinkIfUnused(name: string): void {
    if (this.repo.fileInUse(name)) return;
    fs.rmSync(path.join(this.dir, name), { force: true });
  }
}


/** Service start (areas.ts): follow playlist changes from the first request on. */
export function startPlaylistArtwork(ctx: Deps): void {
  const s = ctx.playlistArtwork;
  s.start();
  ctx.onClose(() => s.close());
}
