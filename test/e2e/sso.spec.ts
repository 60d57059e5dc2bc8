import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { expect, test } from '@playwright/test';
import { startOidcProvider, type TestOidcProvider } from '../fakes/oidc/provider.js';
import { startServer } from './global-setup.js';
import { ADMIN, openSignedIn, snap } from './helpers.js';

// Sign-in through a real OpenID provider (oidc-provider on 127.0.0.1) from the login screen's button.
test.describe.configure({ mode: 'serial' });

let tmp: string;
let child: ChildProcess;
let url: string;
let idp: TestOidcProvider;
let adminToken: string;

async function call(pathname: string, init: RequestInit & { json?: unknown; token?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const res = await fetch(url + pathname, { ...init, headers, ...(init.json !== undefined && { body: JSON.stringify(init.json) }) });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}

test.beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-e2e-sso-'));
  ({ child, url } = await startServer(tmp, { TONEARM_LIBRARY_WATCH: 'false', OIDC_ALLOW_HTTP: 'true' }));
  idp = await startOidcProvider({ redirectUris: [`${url}/sso/callback`] });
  await call('/api/onboarding/complete', { method: 'POST', json: { authUser: ADMIN.username, authPassword: ADMIN.password } });
  const { token } = (await call('/api/auth/login', { method: 'POST', json: ADMIN })).body;
  adminToken = token;
  const saved = await call('/api/settings', {
    method: 'POST',
    token,
    json: { integrations: { oidc: { enabled: true, issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, label: 'Home ID' } } },
  });
  expect(saved.status).toBe(200);
});

test.afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 6000))]);
  }
  await idp?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('"Sign in with Home ID" goes through the provider and lands signed in', async ({ page }) => {
  idp.signInAs({ sub: 'u-hana', preferred_username: 'hana', name: 'Hana' });
  await page.goto(url + '/');
  await page.getByRole('link', { name: 'Sign in with Home ID' }).click();
  await expect(page).toHaveURL(/\/library\/artists$/);
  await expect(page.getByRole('button', { name: /hana/i }).or(page.getByText('hana', { exact: true })).first()).toBeVisible();
  // The one-time code is gone from the address bar and cannot be replayed from history.
  expect(page.url()).not.toContain('code=');
  await snap(page, 'sso-signed-in');
});

test('a refused sign-in shows the reason and a way back', async ({ page }) => {
  idp.denyNext = true;
  await page.goto(url + '/');
  await page.getByRole('link', { name: 'Sign in with Home ID' }).click();
  await expect(page.getByRole('alert')).toContainText('The user said no');
  await page.getByRole('link', { name: 'Back to sign-in' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
});

test('a local account links its identity from Settings → Account, then "Sign in with Home ID" opens it', async ({ browser }) => {
  await call('/api/users', { method: 'POST', token: adminToken, json: { username: 'ines', password: 'ines local password' } });
  const { token } = (await call('/api/auth/login', { method: 'POST', json: { username: 'ines', password: 'ines local password' } })).body;
  const page = await openSignedIn(browser, url, token);
  await page.goto(url + '/settings/account');
  // Her name at the provider is another one; only this link ties the two together.
  idp.signInAs({ sub: 'u-ines', preferred_username: 'ines.provider' });
  await page.getByRole('button', { name: 'Link with Home ID…' }).click();
  await expect(page).toHaveURL(/\/settings\/account\?oidc=linked$/);
  await expect(page.getByText('Your identity is linked')).toBeVisible();
  await expect(page.getByText('u-ines', { exact: true })).toBeVisible();
  await snap(page, 'sso-linked');
  await page.close();

  const fresh = await browser.newPage();
  await fresh.goto(url + '/');
  await fresh.getByRole('link', { name: 'Sign in with Home ID' }).click();
  await expect(fresh).toHaveURL(/\/library\/artists$/);
  await fresh.goto(url + '/settings/account');
  await expect(fresh.getByRole('button', { name: 'Sign out (ines)' })).toBeVisible();
  await expect(fresh.getByRole('button', { name: 'Unlink u-ines' })).toBeVisible();
  await fresh.close();
});
