import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection.js';
import { settingsRepository } from '../../db/settings.js';
import { createSettingsStore } from './store.js';

describe('settings store', () => {
  it('seals passwords, keys and tokens in the database and opens them again', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-settings-'));
    try {
      const file = path.join(dir, 'db.sqlite');
      const key = crypto.randomBytes(32);
      const db = openDatabase(file);
      const repo = settingsRepository(db);
      // A value stored before sealing existed is read as it is.
      repo.put('settings', { integrations: { lidarr: { url: 'http://lidarr:8686', apiKey: 'plain-old-key' } } });
      const store = createSettingsStore(repo, { encryptionKey: key });
      expect(store.get().integrations.lidarr.apiKey).toBe('plain-old-key');
      store.update({
        integrations: { navidrome: { url: 'http://nas:4533', username: 'tonearm', password: 'nävi pass' } },
        notifications: { webhooks: [{ id: 'w', name: 'Hook', url: 'http://hooks.example/x', headers: { Authorization: 'Bearer hook-token', 'X-Plain': 'visible' } }] },
      });
      const raw = JSON.stringify(repo.get('settings'));
      for (const secret of ['nävi pass', 'plain-old-key', 'hook-token']) expect(raw).not.toContain(secret);
      expect(raw).toContain('"password":"sealed:v1:');
      expect(raw).toContain('visible');
      expect(raw).toContain('"username":"tonearm"');
      db.close();

      const reopened = createSettingsStore(settingsRepository(openDatabase(file)), { encryptionKey: key });
      expect(reopened.get().integrations.navidrome.password).toBe('nävi pass');
      expect(reopened.get().integrations.lidarr.apiKey).toBe('plain-old-key');
      expect(reopened.get().notifications.webhooks[0]!.headers.Authorization).toBe('Bearer hook-token');
      // Another key (the key file was replaced): the secret reads as empty, never as ciphertext.
      const otherKey = createSettingsStore(settingsRepository(openDatabase(file)), { encryptionKey: crypto.randomBytes(32) });
      expect(otherKey.get().integrations.navidrome.password).toBe('');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
