import { createHash, randomBytes } from 'node:crypto';
import type { RestKeyRow, RestKeysRepository } from '../../db/subsonicRestKeys.js';
import { NotFoundError, ValidationError } from '../errors.js';

export interface RestKey {
  id: number;
  name: string;
  prefix: string;
  createdAt: number;
  lastUsedAt: number | null;
}

const KEY_PREFIX = 'tsk_';
/** Client-side key use is recorded at most this often, so reads stay reads. */
const TOUCH_INTERVAL_MS = 60_000;

export const hashRestKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

function toRestKey(row: RestKeyRow): RestKey {
  return { id: row.id, name: row.name, prefix: row.prefix, createdAt: row.created_at, lastUsedAt: row.last_used_at };
}

/** Per-user API keys for Subsonic clients (OpenSubsonic apiKeyAuthentication). Only hashes are kept. */
export class RestKeyService {
  constructor(
    private readonly repo: RestKeysRepository,
    private readonly clock: { now(): number },
  ) {}

  list(userId: number): RestKey[] {
    return this.repo.ofUser(userId).map(toRestKey);
  }

  /** Creates a key; the plain key is returned once and never again. */
  create(userId: number, name: string): { key: string; restKey: RestKey } {
    const trimmed = name.trim();
    if (trimmed === '' || trimmed.length > 100) throw new ValidationError('name must be 1-100 characters');
    if (this.repo.ofUser(userId).length >= 50) throw new ValidationError('At most 50 keys per user', 'TOO_MANY_KEYS');
    const key = KEY_PREFIX + randomBytes(24).toString('base64url');
    const row = this.repo.insert(userId, trimmed, hashRestKey(key), key.slice(0, KEY_PREFIX.length + 4), this.clock.now());
    return { key, restKey: toRestKey(row) };
  }

  revoke(userId: number, id: number): void {
    if (!this.repo.remove(id, userId)) throw new NotFoundError('Key not found');
  }

  /** The owner of a plain key, or undefined. */
  verify(key: string): number | undefined {
    if (!key.startsWith(KEY_PREFIX) || key.length > 200) return undefined;
    const row = this.repo.byHash(hashRestKey(key));
    if (!row) return undefined;
    const now = this.clock.now();
    if (row.last_used_at === null || now - row.last_used_at > TOUCH_INTERVAL_MS) this.repo.touch(row.id, now);
    return row.user_id;
  }
}
