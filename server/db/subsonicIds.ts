import type { Db } from './connection.js';

/** Entity kinds as in library_dirty. */
export const ID_KIND = { artist: 1, album: 2, track: 3 } as const;
export type IdEntity = keyof typeof ID_KIND;

const TABLE: Record<IdEntity, string> = { artist: 'library_artists', album: 'library_albums', track: 'library_tracks' };
const BATCH = 20_000;

function perKind<T>(make: (table: string) => T): Record<IdEntity, T> {
  return { artist: make(TABLE.artist), album: make(TABLE.album), track: make(TABLE.track) };
}

/**
 * Resolves Subsonic id keys (hashes of identity keys) back to library rows. Identity keys never
 * change for a row, so the registry only has to take in rows above a per-kind id watermark; a
 * watermark above the table's maximum (deleted tail rows) drops back so reused ids are re-read.
 */
export class SubsonicIdRegistry {
  private readonly stmts;

  constructor(
    private readonly db: Db,
    private readonly keyOf: (identityKey: string) => string,
  ) {
    this.stmts = {
      lookup: db.prepare('SELECT entity_id FROM subsonic_ids WHERE kind = ? AND key = ?').pluck(),
      put: db.prepare(
        'INSERT INTO subsonic_ids (kind, key, entity_id) VALUES (?, ?, ?) ON CONFLICT (kind, key) DO UPDATE SET entity_id = excluded.entity_id',
      ),
      watermark: db.prepare('SELECT max_id FROM subsonic_id_watermarks WHERE kind = ?').pluck(),
      setWatermark: db.prepare(
        'INSERT INTO subsonic_id_watermarks (kind, max_id) VALUES (?, ?) ON CONFLICT (kind) DO UPDATE SET max_id = excluded.max_id',
      ),
      maxId: perKind((t) => db.prepare<[], number | null>(`SELECT MAX(id) FROM ${t}`).pluck()),
      rowsAbove: perKind((t) =>
        db.prepare<[number, number], { id: number; identity_key: string }>(`SELECT id, identity_key FROM ${t} WHERE id > ? ORDER BY id LIMIT ?`),
      ),
      identityOf: perKind((t) => db.prepare<[number], string>(`SELECT identity_key FROM ${t} WHERE id = ?`).pluck()),
    };
  }

  /** The entity id for a key, or undefined when no row has that identity. */
  resolve(kind: IdEntity, key: string): number | undefined {
    const found = this.lookupVerified(kind, key);
    if (found !== undefined) return found;
    // Unknown or stale: take in new rows once, then look again.
    if (this.sync(kind) === 0) return undefined;
    return this.lookupVerified(kind, key);
  }

  /** Registers rows added since the last sync; returns how many. */
  sync(kind: IdEntity, limit = Number.POSITIVE_INFINITY): number {
    const max = (this.stmts.maxId[kind].get() as number | null) ?? 0;
    let mark = (this.stmts.watermark.get(ID_KIND[kind]) as number | undefined) ?? 0;
    if (mark > max) mark = max;
    let added = 0;
    while (mark < max && added < limit) {
      const rows = this.stmts.rowsAbove[kind].all(mark, BATCH) as { id: number; identity_key: string }[];
      if (rows.length === 0) break;
      const keyed = rows.map((r) => [this.keyOf(r.identity_key), r.id] as const);
      this.db.transaction(() => {
        for (const [key, id] of keyed) this.stmts.put.run(ID_KIND[kind], key, id);
        mark = rows[rows.length - 1]!.id;
        this.stmts.setWatermark.run(ID_KIND[kind], mark);
      })();
      added += rows.length;
    }
    if (added === 0) this.stmts.setWatermark.run(ID_KIND[kind], mark);
    return added;
  }

  syncAll(): number {
    return this.sync('artist') + this.sync('album') + this.sync('track');
  }

  private lookupVerified(kind: IdEntity, key: string): number | undefined {
    const id = this.stmts.lookup.get(ID_KIND[kind], key) as number | undefined;
    if (id === undefined) return undefined;
    const identity = this.stmts.identityOf[kind].get(id) as string | undefined;
    return identity !== undefined && this.keyOf(identity) === key ? id : undefined;
  }
}
