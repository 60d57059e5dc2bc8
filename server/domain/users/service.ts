import crypto from 'node:crypto';
import { z } from 'zod';
import { decrypt, encrypt } from '../../secrets.js';
import type { UserRow, UsersRepository } from '../../db/users.js';
import type { SessionsRepository } from '../../db/sessions.js';
import { ConflictError, NotFoundError, UnauthorizedError, ValidationError } from '../errors.js';
import { assertPasswordStrength, hashPassword, verifyPassword } from '../auth/passwords.js';
import { effectivePermissions, type Permissions, type Role } from '../auth/permissions.js';

export const lidarrPreferencesSchema = z
  .object({
    managedBy: z
      .enum(['aurral', 'lidarr', 'aurral-managed', 'lidarr-managed'])
      .transform((v) => (v.startsWith('lidarr') ? 'lidarr' : 'aurral'))
      .nullable(),
    rootFolderPath: z.string().max(4096).nullable(),
    qualityProfileId: z.number().int().positive().nullable(),
    metadataProfileId: z.number().int().positive().nullable(),
  })
  .partial()
  .strict();
export type LidarrPreferences = {
  managedBy: 'aurral' | 'lidarr' | null;
  rootFolderPath: string | null;
  qualityProfileId: number | null;
  metadataProfileId: number | null;
};

/** `local` is the user's own play events, the default until another provider is chosen. */
export const listeningHistoryProviders = ['local', 'lastfm', 'listenbrainz', 'koito'] as const;
export type ListeningHistory = { provider: string; username: string | null; url: string | null };

export interface User {
  id: number;
  username: string;
  role: Role;
  permissions: Permissions;
  status: 'active' | 'disabled';
  createdAt: number;
  listeningHistory: ListeningHistory;
}

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    username: row.username,
    role: row.role,
    permissions: effectivePermissions(row.role, JSON.parse(row.permissions) as Partial<Permissions>),
    status: row.status,
    createdAt: row.created_at,
    listeningHistory: {
      provider: row.listening_history_provider ?? 'local',
      username: row.listening_history_username,
      url: row.listening_history_url,
    },
  };
}

export interface UserChangesInput {
  username?: string;
  role?: Role;
  permissions?: Partial<Permissions>;
  status?: 'active' | 'disabled';
  password?: string;
  listeningHistory?: { provider: string | null; username: string | null; url?: string | null };
}

const USERNAME = /^[\p{L}\p{N}._@-]{1,64}$/u;

/** Accounts: creation, changes with last-administrator protection, passwords and preferences. */
export class UsersService {
  private readonly deactivatedListeners = new Set<(userId: number) => void>();

  constructor(
    private readonly users: UsersRepository,
    private readonly sessions: SessionsRepository,
    private readonly encryptionKey: Buffer,
    private readonly clock: { now(): number },
    private readonly inTransaction: <T>(fn: () => T) => T,
  ) {}

  /** Called when a user loses access (disabled or deleted): sockets and caches drop them. */
  onDeactivated(listener: (userId: number) => void): () => void {
    this.deactivatedListeners.add(listener);
    return () => this.deactivatedListeners.delete(listener);
  }

  count(): number {
    return this.users.count();
  }

  list(): User[] {
    return this.users.list().map(toUser);
  }

  get(id: number): User {
    const row = this.users.byId(id);
    if (!row) throw new NotFoundError('User not found');
    return toUser(row);
  }

  row(id: number): UserRow | undefined {
    return this.users.byId(id);
  }

  findByUsername(username: string): UserRow | undefined {
    return this.users.byUsername(username.trim());
  }

  async create(input: { username: string; password: string; role?: Role; permissions?: Partial<Permissions> }): Promise<User> {
    const username = input.username.trim();
    if (!USERNAME.test(username))
      throw new ValidationError('Username must be 1-64 letters, digits or . _ @ -', 'VALIDATION_ERROR');
    assertPasswordStrength(input.password);
    const hash = await hashPassword(input.password);
    return this.inTransaction(() => {
      if (this.users.byUsername(username)) throw new ConflictError('Username already exists', 'USERNAME_TAKEN');
      const id = this.users.insert(
        {
          username,
          password_hash: hash,
          password_enc: encrypt(this.encryptionKey, input.password),
          role: input.role ?? 'user',
          permissions: JSON.stringify(input.permissions ?? {}),
        },
        this.clock.now(),
      );
      return this.get(id);
    });
  }

  async update(id: number, changes: UserChangesInput): Promise<User> {
    const passwordFields = changes.password !== undefined ? await this.passwordColumns(changes.password) : {};
    let deactivated = false;
    const user = this.inTransaction(() => {
      const row = this.users.byId(id);
      if (!row) throw new NotFoundError('User not found');
      const nextRole = changes.role ?? row.role;
      const nextStatus = changes.status ?? row.status;
      const losesAdmin = row.role === 'admin' && row.status === 'active' && (nextRole !== 'admin' || nextStatus !== 'active');
      if (losesAdmin && this.users.activeAdminCount() <= 1)
        throw new ConflictError('The last active administrator cannot be demoted or disabled', 'LAST_ADMIN');
      if (changes.username !== undefined) {
        const username = changes.username.trim();
        if (!USERNAME.test(username)) throw new ValidationError('Username must be 1-64 letters, digits or . _ @ -');
        const other = this.users.byUsername(username);
        if (other && other.id !== id) throw new ConflictError('Username already exists', 'USERNAME_TAKEN');
        changes.username = username;
      }
      const stored = JSON.parse(row.permissions) as Partial<Permissions>;
      this.users.update(
        id,
        {
          ...(changes.username !== undefined && { username: changes.username }),
          ...(changes.role !== undefined && { role: changes.role }),
          ...(changes.status !== undefined && { status: changes.status }),
          ...(changes.permissions !== undefined && { permissions: JSON.stringify({ ...stored, ...changes.permissions }) }),
          ...(changes.listeningHistory !== undefined && {
            listening_history_provider: changes.listeningHistory.provider,
            listening_history_username: changes.listeningHistory.username,
            ...(changes.listeningHistory.url !== undefined && { listening_history_url: changes.listeningHistory.url }),
          }),
          ...passwordFields,
        },
        this.clock.now(),
      );
      deactivated = row.status === 'active' && nextStatus === 'disabled';
      // A disabled account or a password reset ends every session at once.
      if (deactivated || changes.password !== undefined) this.sessions.deleteForUser(id);
      return this.get(id);
    });
    if (deactivated) this.emitDeactivated(id);
    return user;
  }

  delete(id: number): void {
    this.inTransaction(() => {
      const row = this.users.byId(id);
      if (!row) throw new NotFoundError('User not found');
      if (row.role === 'admin' && row.status === 'active' && this.users.activeAdminCount() <= 1)
        throw new ConflictError('The last active administrator cannot be deleted', 'LAST_ADMIN');
      this.users.delete(id);
    });
    this.emitDeactivated(id);
  }

  async verifyCredentials(username: string, password: string): Promise<UserRow | null> {
    const row = this.users.byUsername(username.trim());
    if (!row) {
      // Spend the same time as a real check so usernames cannot be probed by timing.
      await verifyPassword(password, DUMMY_HASH);
      return null;
    }
    return (await verifyPassword(password, row.password_hash)) ? row : null;
  }

  async changeOwnPassword(id: number, currentPassword: string, newPassword: string, keepSessionId?: string): Promise<void> {
    const row = this.users.byId(id);
    if (!row) throw new NotFoundError('User not found');
    if (!(await verifyPassword(currentPassword, row.password_hash)))
      throw new ValidationError('Current password is incorrect', 'INVALID_PASSWORD');
    const fields = await this.passwordColumns(newPassword);
    this.inTransaction(() => {
      this.users.update(id, fields, this.clock.now());
      // Other devices must sign in again; the session that changed it stays.
      this.sessions.deleteForUserExcept(id, keepSessionId ?? '');
    });
  }

  /**
   * A way back in: gives the account a fresh one-time password that signs in once and must then be
   * replaced (`npm run reset-password`). Every session of the account ends. Unknown name: NotFoundError.
   */
  async resetWithOneTimePassword(username: string): Promise<{ user: User; password: string }> {
    const row = this.users.byUsername(username.trim());
    if (!row) throw new NotFoundError(`No user named "${username.trim()}"`);
    const password = oneTimePassword();
    const fields = await this.passwordColumns(password);
    this.inTransaction(() => {
      this.users.update(row.id, { ...fields, must_change_password: 1 }, this.clock.now());
      this.sessions.deleteForUser(row.id);
    });
    return { user: this.get(row.id), password };
  }

  /**
   * Spends a one-time password at sign-in: the first sign-in moves it to "used" (the session may only
   * choose a new password); a second one is refused.
   */
  spendOneTimePassword(row: UserRow): UserRow {
    if (row.must_change_password === 0) return row;
    if (row.must_change_password === 2)
      throw new UnauthorizedError(
        'This one-time password was already used. Run "npm run reset-password" again for a new one',
        'ONE_TIME_PASSWORD_USED',
      );
    this.users.update(row.id, { must_change_password: 2 }, this.clock.now());
    return { ...row, must_change_password: 2 };
  }

  /** The plain password, for Subsonic token auth only. */
  recoverPassword(row: UserRow): string {
    return decrypt(this.encryptionKey, row.password_enc);
  }

  lidarrPreferences(id: number): LidarrPreferences {
    const row = this.users.byId(id);
    if (!row) throw new NotFoundError('User not found');
    const stored = JSON.parse(row.lidarr_preferences) as Partial<LidarrPreferences>;
    return {
      managedBy: stored.managedBy ?? null,
      rootFolderPath: stored.rootFolderPath ?? null,
      qualityProfileId: stored.qualityProfileId ?? null,
      metadataProfileId: stored.metadataProfileId ?? null,
    };
  }

  setLidarrPreferences(id: number, patch: Partial<LidarrPreferences>): LidarrPreferences {
    const next = { ...this.lidarrPreferences(id), ...patch };
    this.users.update(id, { lidarr_preferences: JSON.stringify(next) }, this.clock.now());
    return next;
  }

  discoverLayout(id: number): unknown {
    const row = this.users.byId(id);
    if (!row) throw new NotFoundError('User not found');
    return row.discover_layout ? JSON.parse(row.discover_layout) : null;
  }

  setDiscoverLayout(id: number, layout: unknown): unknown {
    this.users.update(id, { discover_layout: JSON.stringify(layout) }, this.clock.now());
    return layout;
  }

  private async passwordColumns(password: string) {
    assertPasswordStrength(password);
    return {
      password_hash: await hashPassword(password),
      password_enc: encrypt(this.encryptionKey, password),
      must_change_password: 0 as const,
    };
  }

  private emitDeactivated(id: number) {
    for (const l of this.deactivatedListeners) l(id);
  }
}

const DUMMY_HASH = `scrypt$${crypto.randomBytes(16).toString('hex')}$${crypto.randomBytes(64).toString('hex')}`;

/** 24 characters from an alphabet without look-alikes, in groups of four: easy to read out and type. */
function oneTimePassword(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  const bytes = crypto.randomBytes(24);
  const chars = [...bytes].map((b) => alphabet[b % alphabet.length]);
  return Array.from({ length: 6 }, (_, i) => chars.slice(i * 4, i * 4 + 4).join('')).join('-');
}
