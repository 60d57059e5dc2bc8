import type { Db } from './connection.js';

/** Plex's stored state (062_plex.sql). Tokens are stored and returned encrypted; only domain/plex decrypts them. */

export interface PlexAccountRow {
  tokenEnc: string;
  plexId: string | null;
  uuid: string | null;
  username: string | null;
  connectedBy: number | null;
  connectedAt: number;
}

export interface PlexPinRow {
  id: string;
  code: string;
  purpose: 'server' | 'user';
  userId: number | null;
  createdAt: number;
  expiresAt: number;
}

export type PlexLinkKind = 'oauth' | 'managed';

export interface PlexLinkRow {
  userId: number;
  kind: PlexLinkKind;
  plexUserId: string | null;
  plexUuid: string | null;
  username: string | null;
  title: string | null;
  tokenEnc: string;
  linkedBy: number | null;
  linkedAt: number;
  lastError: string | null;
}

export const plexAccount = {
  get(db: Db): PlexAccountRow | undefined {
    return db
      .prepare('SELECT token_enc AS tokenEnc, plex_id AS plexId, uuid, username, connected_by AS connectedBy, connected_at AS connectedAt FROM plex_account WHERE id = 1')
      .get() as PlexAccountRow | undefined;
  },
  set(db: Db, row: PlexAccountRow): void {
    db.prepare(
      `INSERT INTO plex_account (id, token_enc, plex_id, uuid, username, connected_by, connected_at)
       VALUES (1, @tokenEnc, @plexId, @uuid, @username, @connectedBy, @connectedAt)
       ON CONFLICT (id) DO UPDATE SET token_enc = excluded.token_enc, plex_id = excluded.plex_id, uuid = excluded.uuid,
         username = excluded.username, connected_by = excluded.connected_by, connected_at = excluded.connected_at`,
    ).run(row);
  },
  /** Forgets the account and every server token that came with it. */
  clear(db: Db): void {
    db.transaction(() => {
      db.prepare('DELETE FROM plex_account').run();
      db.prepare('DELETE FROM plex_server_tokens').run();
    })();
  },
};

export const plexServerTokens = {
  get(db: Db, machineIdentifier: string): string | undefined {
    return (db.prepare('SELECT token_enc AS tokenEnc FROM plex_server_tokens WHERE machine_identifier = ?').get(machineIdentifier) as { tokenEnc: string } | undefined)?.tokenEnc;
  },
  put(db: Db, machineIdentifier: string, name: string | null, tokenEnc: string, now: number): void {
    db.prepare(
      `INSERT INTO plex_server_tokens (machine_identifier, name, token_enc, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (machine_identifier) DO UPDATE SET name = excluded.name, token_enc = excluded.token_enc, updated_at = excluded.updated_at`,
    ).run(machineIdentifier, name, tokenEnc, now);
  },
};

export const plexPins = {
  insert(db: Db, pin: PlexPinRow): void {
    db.prepare('INSERT OR REPLACE INTO plex_pins (id, code, purpose, user_id, created_at, expires_at) VALUES (@id, @code, @purpose, @userId, @createdAt, @expiresAt)').run(pin);
  },
  get(db: Db, id: string): PlexPinRow | undefined {
    return db.prepare('SELECT id, code, purpose, user_id AS userId, created_at AS createdAt, expires_at AS expiresAt FROM plex_pins WHERE id = ?').get(id) as PlexPinRow | undefined;
  },
  delete(db: Db, id: string): void {
    db.prepare('DELETE FROM plex_pins WHERE id = ?').run(id);
  },
  /** PINs past their expiry are of no use to anyone. */
  prune(db: Db, now: number): void {
    db.prepare('DELETE FROM plex_pins WHERE expires_at < ?').run(now);
  },
};

const LINK_COLUMNS = `user_id AS userId, kind, plex_user_id AS plexUserId, plex_uuid AS plexUuid, username, title, token_enc AS tokenEnc,
  linked_by AS linkedBy, linked_at AS linkedAt, last_error AS lastError`;

export const plexLinks = {
  get(db: Db, userId: number): PlexLinkRow | undefined {
    return db.prepare(`SELECT ${LINK_COLUMNS} FROM plex_links WHERE user_id = ?`).get(userId) as PlexLinkRow | undefined;
  },
  list(db: Db): PlexLinkRow[] {
    return db.prepare(`SELECT ${LINK_COLUMNS} FROM plex_links ORDER BY user_id`).all() as PlexLinkRow[];
  },
  upsert(db: Db, link: Omit<PlexLinkRow, 'lastError'>): void {
    db.prepare(
      `INSERT INTO plex_links (user_id, kind, plex_user_id, plex_uuid, username, title, token_enc, linked_by, linked_at, last_error)
       VALUES (@userId, @kind, @plexUserId, @plexUuid, @username, @title, @tokenEnc, @linkedBy, @linkedAt, NULL)
       ON CONFLICT (user_id) DO UPDATE SET kind = excluded.kind, plex_user_id = excluded.plex_user_id, plex_uuid = excluded.plex_uuid,
         username = excluded.username, title = excluded.title, token_enc = excluded.token_enc, linked_by = excluded.linked_by,
         linked_at = excluded.linked_at, last_error = NULL`,
    ).run(link);
  },
  setError(db: Db, userId: number, error: string | null): void {
    db.prepare('UPDATE plex_links SET last_error = ? WHERE user_id = ?').run(error, userId);
  },
  delete(db: Db, userId: number): boolean {
    return db.prepare('DELETE FROM plex_links WHERE user_id = ?').run(userId).changes > 0;
  },
};

export interface PlexTrackRow {
  ratingKey: string;
  trackId: number | null;
  file: string | null;
}

export const plexTracks = {
  /** Replaces a section's map with a fresh read of it. */
  replaceSection(db: Db, sectionId: string, rows: readonly PlexTrackRow[], now: number): void {
    db.transaction(() => {
      db.prepare('DELETE FROM plex_tracks WHERE section_id = ?').run(sectionId);
      const insert = db.prepare('INSERT OR REPLACE INTO plex_tracks (section_id, rating_key, track_id, file, synced_at) VALUES (?, ?, ?, ?, ?)');
      for (const r of rows) insert.run(sectionId, r.ratingKey, r.trackId, r.file, now);
    })();
  },
  /** Library track id → the Plex ratingKey of the same file in that section (tracks Plex does not have are absent). */
  ratingKeysFor(db: Db, sectionId: string, trackIds: readonly number[]): Map<number, string> {
    const out = new Map<number, string>();
    const stmt = db.prepare('SELECT rating_key AS ratingKey FROM plex_tracks WHERE section_id = ? AND track_id = ? LIMIT 1');
    for (const id of trackIds) {
      const row = stmt.get(sectionId, id) as { ratingKey: string } | undefined;
      if (row) out.set(id, row.ratingKey);
    }
    return out;
  },
  counts(db: Db, sectionId: string): { total: number; matched: number; syncedAt: number | null } {
    return db
      .prepare('SELECT COUNT(*) AS total, COUNT(track_id) AS matched, MAX(synced_at) AS syncedAt FROM plex_tracks WHERE section_id = ?')
      .get(sectionId) as { total: number; matched: number; syncedAt: number | null };
  },
};

/** Library tracks by the path of one of their files (available files only). */
export function libraryTrackIdByPath(db: Db): (path: string) => number | undefined {
  const stmt = db.prepare('SELECT track_id AS trackId FROM library_media_files WHERE path = ? AND available = 1 ORDER BY id LIMIT 1');
  return (path) => (stmt.get(path) as { trackId: number } | undefined)?.trackId;
}

export interface PlexPublishIdentityRow {
  account: string;
  userId: number;
  linkAt: number;
  tokenEnc: string;
  origins: string[];
  updatedAt: number;
}

/** The Plex identities playlists are published under (067): a linked user's own server token and where it may go. */
export const plexPublishIdentities = {
  get(db: Db, account: string): PlexPublishIdentityRow | undefined {
    const row = db
      .prepare('SELECT account, user_id AS userId, link_at AS linkAt, token_enc AS tokenEnc, origins, updated_at AS updatedAt FROM plex_publish_identities WHERE account = ?')
      .get(account) as (Omit<PlexPublishIdentityRow, 'origins'> & { origins: string }) | undefined;
    return row ? { ...row, origins: JSON.parse(row.origins) as string[] } : undefined;
  },
  put(db: Db, row: PlexPublishIdentityRow): void {
    db.prepare(
      `INSERT INTO plex_publish_identities (account, user_id, link_at, token_enc, origins, updated_at) VALUES (@account, @userId, @linkAt, @tokenEnc, @origins, @updatedAt)
       ON CONFLICT (account) DO UPDATE SET user_id = excluded.user_id, link_at = excluded.link_at, token_enc = excluded.token_enc,
         origins = excluded.origins, updated_at = excluded.updated_at`,
    ).run({ ...row, origins: JSON.stringify(row.origins) });
  },
  delete(db: Db, account: string): void {
    db.prepare('DELETE FROM plex_publish_identities WHERE account = ?').run(account);
  },
  /**
   * Forgets identities whose link is gone (or changed to another Plex user) and under which nothing is
   * published any more: their token has no use left.
   */
  prune(db: Db, isCurrent: (row: { account: string; userId: number }) => boolean): number {
    const rows = db
      .prepare(
        `SELECT account, user_id AS userId FROM plex_publish_identities i
         WHERE NOT EXISTS (SELECT 1 FROM playback_publications p WHERE p.destination = 'plex' AND (p.account = i.account OR p.previous_account = i.account))`,
      )
      .all() as Array<{ account: string; userId: number }>;
    let removed = 0;
    for (const r of rows) {
      if (isCurrent(r)) continue;
      db.prepare('DELETE FROM plex_publish_identities WHERE account = ?').run(r.account);
      removed++;
    }
    return removed;
  },
};
