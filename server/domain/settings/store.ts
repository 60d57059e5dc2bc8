import { decrypt, encrypt } from '../../secrets.js';
import { ValidationError } from '../errors.js';
import type { SettingsRepository } from '../../db/settings.js';
import { settingLabel } from './labels.js';
import { SECRET_FIELD, SECRET_HEADER, SECRET_MASK, settingsSchema, type Settings } from './schema.js';
import { refuseSecretsMovedToAnotherOrigin, restoreMaskedWebhookHeaders } from './secretOrigin.js';

const KEY = 'settings';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Objects merge key by key; arrays and scalars replace; a masked secret keeps the stored one. */
function mergeKeepingSecrets(current: unknown, patch: unknown): unknown {
  if (!isObject(current) || !isObject(patch)) return patch;
  const out: Json = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    if (SECRET_FIELD.test(k) && v === SECRET_MASK) continue;
    out[k] = isObject(v) && isObject(current[k]) ? mergeKeepingSecrets(current[k], v) : v;
  }
  return out;
}

/** A copy with every non-empty secret (and credential header of a webhook) replaced by the mask. */
export function maskSecrets<T>(value: T, inHeaders = false): T {
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v)) as T;
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    const secret = inHeaders ? SECRET_HEADER.test(k) : SECRET_FIELD.test(k);
    out[k] = secret && typeof v === 'string' && v !== '' ? SECRET_MASK : maskSecrets(v, k === 'headers');
  }
  return out as T;
}

/** Prefix of a secret sealed at rest with the installation's AES-GCM key. */
const SEALED = 'sealed:';

/**
 * A copy with every secret (the fields `maskSecrets` masks) sealed (`encryptionKey` given) or opened
 * again. Values stored before sealing existed are read as they are and sealed at the next save; a
 * sealed value that does not open (the key file was replaced) reads as empty: it must be entered again.
 */
function sealSecrets<T>(value: T, key: Buffer, direction: 'seal' | 'open', inHeaders = false): T {
  if (Array.isArray(value)) return value.map((v) => sealSecrets(v, key, direction)) as T;
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    const secret = inHeaders ? SECRET_HEADER.test(k) : SECRET_FIELD.test(k);
    if (secret && typeof v === 'string' && v !== '') {
      if (direction === 'seal') out[k] = v.startsWith(SEALED) ? v : SEALED + encrypt(key, v);
      else if (!v.startsWith(SEALED)) out[k] = v;
      else {
        try {
          out[k] = decrypt(key, v.slice(SEALED.length));
        } catch {
          out[k] = '';
        }
      }
    } else out[k] = sealSecrets(v, key, direction, k === 'headers');
  }
  return out as T;
}

export interface SettingsStoreOptions {
  /** Seals passwords, API keys and tokens in the database (the installation's key, server/secrets.ts). */
  encryptionKey?: Buffer;
}

export interface SettingsStore {
  get(): Settings;
  /**
   * Validates the merged result; nothing is stored when it is invalid, or when it would send a
   * stored secret to another origin (400 SECRET_REENTRY_REQUIRED).
   */
  update(patch: unknown): Settings;
  /** The settings a patch would produce, validated but not stored. */
  preview(patch: unknown): Settings;
  onChange(listener: (next: Settings, previous: Settings) => void): () => void;
}

function validate(current: Settings, patch: unknown): Settings {
  if (!isObject(patch)) throw new ValidationError('Settings must be a JSON object', 'VALIDATION_ERROR');
  const result = settingsSchema.safeParse(mergeKeepingSecrets(current, restoreMaskedWebhookHeaders(current, patch)));
  if (result.success) {
    refuseSecretsMovedToAnotherOrigin(current, patch, result.data);
    return result.data;
  }
  const issue = result.error.issues[0]!;
  throw new ValidationError(
    `${settingLabel(issue.path)}: ${issue.message}`,
    'VALIDATION_ERROR',
    result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
  );
}

export function createSettingsStore(repo: SettingsRepository, options: SettingsStoreOptions = {}): SettingsStore {
  const key = options.encryptionKey;
  const stored = repo.get<unknown>(KEY) ?? {};
  let current = settingsSchema.parse(key ? sealSecrets(stored, key, 'open') : stored);
  const listeners = new Set<(next: Settings, previous: Settings) => void>();
  return {
    get: () => current,
    preview: (patch) => validate(current, patch),
    update(patch) {
      const next = validate(current, patch);
      const previous = current;
      current = next;
      repo.put(KEY, key ? sealSecrets(current, key, 'seal') : current);
      for (const l of listeners) l(current, previous);
      return current;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
