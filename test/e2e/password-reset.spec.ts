import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { ADMIN, snap, startOwnServer, stopOwnServer, type OwnServer } from './helpers.js';

// A locked-out administrator gets back in with `npm run reset-password` alone.
test.describe.configure({ mode: 'serial' });

const repoRoot = path.resolve(import.meta.dirname, '../..');
let tmp: string;
let server: OwnServer;

test.beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-e2e-reset-'));
  server = await startOwnServer(tmp, { TONEARM_LIBRARY_WATCH: 'false' });
});

test.afterAll(async () => {
  await stopOwnServer(server?.child);
  fs.rmSync(tmp, { recursive: true, force: true });
});

function resetPassword(username: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'server/resetPassword.ts', username],
      { cwd: repoRoot, env: { ...process.env, TONEARM_DATA_DIR: tmp } },
      (err, stdout, stderr) => {
        const match = /^one-time password: (\S+)$/m.exec(stdout);
        if (err || !match) reject(new Error(`reset-password failed: ${stderr}`));
        else resolve(match[1]!);
      },
    );
  });
}

test('the one-time password signs in once and asks for a new password before anything else', async ({ page }) => {
  const otp = await resetPassword(ADMIN.username);
  await page.goto(server.url + '/');
  await page.getByLabel('User name').fill(ADMIN.username);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('Invalid username or password');

  await page.getByLabel('Password').fill(otp);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
  await snap(page, 'reset-01-choose-password');

  // A reload keeps asking: the server says so in the bootstrap.
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();

  await page.getByLabel('One-time password').fill(otp);
  await page.getByLabel('New password', { exact: true }).fill('back in for good');
  await page.getByLabel('New password again').fill('back in for good');
  await page.getByRole('button', { name: 'Save and continue' }).click();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  const login = await fetch(server.url + '/api/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: ADMIN.username, password: 'back in for good' }),
  });
  expect(login.status).toBe(200);
});
