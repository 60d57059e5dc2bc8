import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `npm run reset-password -- <args>`, as a person runs it: a separate process on the data folder. */
function resetPassword(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'server/resetPassword.ts'), ...args],
      { cwd: root, env: { ...process.env, TONEARM_DATA_DIR: dataDir, LOG_LEVEL: 'silent' } },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const passwordFrom = (stdout: string) => {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  const match = /^one-time password: (\S+)$/.exec(lines[0]!);
  expect(match).not.toBeNull();
  return match![1]!;
};

describe('npm run reset-password', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  const login = (username: string, password: string) => server.api('/api/auth/login', { method: 'POST', json: { username, password } });

  it('gets a locked-out administrator back in while the server runs: one sign-in, then a new password', async () => {
    const before = server.admin.token;
    const { code, stdout, stderr } = await resetPassword(server.dataDir, ADMIN.username);
    expect(code).toBe(0);
    expect(stderr).toContain('Every session of "admin" has ended');
    const otp = passwordFrom(stdout);

    // Every session of that user ended; the old password is gone.
    expect((await server.api('/api/auth/me', { token: before })).status).toBe(401);
    expect((await login(ADMIN.username, ADMIN.password)).status).toBe(401);

    const first = await login(ADMIN.username, otp);
    expect(first.status).toBe(200);
    const session = (await first.json()) as { token: string; mustChangePassword?: boolean };
    expect(session.mustChangePassword).toBe(true);

    // That session may only choose a new password.
    const settings = await server.api('/api/settings', { token: session.token });
    expect(settings.status).toBe(403);
    expect(await settings.json()).toMatchObject({ code: 'PASSWORD_CHANGE_REQUIRED' });
    const me = await server.api('/api/auth/me', { token: session.token });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ user: { username: 'admin' }, mustChangePassword: true });

    // The one-time password works once, and never for Subsonic apps.
    const again = await login(ADMIN.username, otp);
    expect(again.status).toBe(401);
    expect(await again.json()).toMatchObject({ code: 'ONE_TIME_PASSWORD_USED' });
    const rest = await server.api(`/rest/ping?u=admin&p=${encodeURIComponent(otp)}&v=1.16.1&c=test&f=json`);
    expect(((await rest.json()) as { 'subsonic-response': { error?: { code: number } } })['subsonic-response'].error?.code).toBe(40);

    const changed = await server.api('/api/users/me/password', {
      method: 'POST',
      token: session.token,
      json: { currentPassword: otp, newPassword: 'a brand new password' },
    });
    expect(changed.status).toBe(200);
    expect((await server.api('/api/settings', { token: session.token })).status).toBe(200);
    const fresh = await login(ADMIN.username, 'a brand new password');
    expect(fresh.status).toBe(200);
    expect(((await fresh.json()) as { mustChangePassword?: boolean }).mustChangePassword).toBeUndefined();
  });

  it('refuses clearly when the user does not exist, and changes nothing', async () => {
    const { code, stdout, stderr } = await resetPassword(server.dataDir, 'nobody-here');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('No user named "nobody-here"');
  });

  it('refuses a folder without a database instead of creating one', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-empty-'));
    try {
      const { code, stderr } = await resetPassword(empty, 'admin');
      expect(code).toBe(3);
      expect(stderr).toContain('no Tonearm database');
      expect(fs.existsSync(path.join(empty, 'tonearm.db'))).toBe(false);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('npm run reset-password with the server stopped', () => {
  it('works on the data folder alone; the next start accepts the one-time password', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-reset-'));
    try {
      const first = await startTestServer({ dataDir });
      await first.stop();
      const { code, stdout } = await resetPassword(dataDir, '--admin');
      expect(code).toBe(0);
      const otp = passwordFrom(stdout);
      const second = await startTestServer({ dataDir, onboard: false });
      try {
        const res = await second.api('/api/auth/login', { method: 'POST', json: { username: 'admin', password: otp } });
        expect(res.status).toBe(200);
        expect(((await res.json()) as { mustChangePassword: boolean }).mustChangePassword).toBe(true);
      } finally {
        await second.stop();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
