import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface Secrets {
  /** HS256 key that signs session JWTs. */
  sessionKey: Buffer;
  /** AES-256-GCM key for the recoverable password copy used by /rest token auth. */
  encryptionKey: Buffer;
}

/** Reads the installation's keys from the data directory, creating them owner-only on first start. */
export function loadSecrets(dataDir: string): Secrets {
  const dir = path.join(dataDir, 'secrets');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Our own folder: tightened even when an earlier version or a permissive umask left it open.
  fs.chmodSync(dir, 0o700);
  return {
    sessionKey: readOrCreateKey(path.join(dir, 'session.key')),
    encryptionKey: readOrCreateKey(path.join(dir, 'encryption.key')),
  };
}

function readOrCreateKey(file: string): Buffer {
  try {
    const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
    if (key.length === 32) {
      fs.chmodSync(file, 0o600);
      return key;
    }
    throw new Error(`${file} does not hold a 32-byte hex key; move it away to let Tonearm create a new one`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const key = crypto.randomBytes(32);
  // 'wx' never overwrites a key another process wrote first.
  fs.writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  return key;
}

export function encrypt(key: Buffer, plain: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
}

export function decrypt(key: Buffer, sealed: string): string {
  const [version, iv, tag, body] = sealed.split(':');
  if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unknown ciphertext format');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
}
