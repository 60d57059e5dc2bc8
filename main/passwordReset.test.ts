import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../test/helpers/server.js';
import { resetAdministratorPassword } from './passwordReset.js';
import { createChildProcessLauncher } from './serverProcess.js';

const entry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../server/resetPassword.ts');
const launcher = createChildProcessLauncher({ execArgv: ['--import', 'tsx'] });
const envFor = (dataDir: string) => ({ ...(process.env as Record<string, string>), TONEARM_DATA_DIR: dataDir });

describe('the tray\'s "Reset administrator password…"', () => {
  it('runs the reset entry on the server\'s data folder and hands back the one-time password', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-tray-reset-'));
    try {
      await (await startTestServer({ dataDir })).stop();
      const result = await resetAdministratorPassword({ launcher, modulePath: entry, env: envFor(dataDir) });
      expect(result.password).toMatch(/^[a-z2-9]{4}(-[a-z2-9]{4}){5}$/);
      expect(result.note).toContain('"admin"');
      const server = await startTestServer({ dataDir, onboard: false });
      try {
        const res = await server.api('/api/auth/login', { method: 'POST', json: { username: 'admin', password: result.password } });
        expect(res.status).toBe(200);
      } finally {
        await server.stop();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('rejects with what the script said when it cannot reset', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-tray-reset-'));
    try {
      await expect(resetAdministratorPassword({ launcher, modulePath: entry, env: envFor(empty) })).rejects.toThrow(/no Tonearm database/);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
