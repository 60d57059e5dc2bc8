import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ADMIN, openSignedIn, snap, startOwnServer, stopOwnServer, type OwnServer } from './helpers.js';

test.describe.configure({ mode: 'serial' });

let tmp: string;
let server: OwnServer;

test.beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-e2e-newcomer-'));
  fs.mkdirSync(path.join(tmp, 'data'));
  server = await startOwnServer(path.join(tmp, 'data'), { TONEARM_LIBRARY_WATCH: 'false' });
});

test.afterAll(async () => {
  await stopOwnServer(server?.child);
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Left and right edges of each element the locator matches. */
const edges = (page: Page, selector: string) =>
  page.locator(selector).evaluateAll((els) => els.map((e) => ({ name: (e.textContent ?? '').trim(), left: e.getBoundingClientRect().left, right: e.getBoundingClientRect().right })));

test('the More menu and the Settings tabs stay inside the window at 320, 390, 768 and 1280 px', async ({ browser }) => {
  for (const width of [320, 390, 768, 1280]) {
    const page = await openSignedIn(browser, server.url, server.token, { viewport: { width, height: 844 } });
    await page.goto('/library/artists');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /^More/ }).click();
    const menu = page.locator('#mainnav-more-list');
    await expect(menu).toBeVisible();
    const links = await edges(page, '#mainnav-more-list a');
    expect(links.map((l) => l.name)).toContain('Settings');
    for (const l of links) {
      expect(l.left, `${l.name} at ${width} px`).toBeGreaterThanOrEqual(0);
      expect(l.right, `${l.name} at ${width} px`).toBeLessThanOrEqual(width);
    }
    await snap(page, `newcomer-more-${width}`);
    // Settings and "Connect an app" are reached from the menu.
    await menu.getByRole('link', { name: 'Connect an app' }).click();
    await expect(page).toHaveURL(/\/connect$/);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /^More/ }).click();
    await menu.getByRole('link', { name: 'Settings' }).click();
    await expect(page).toHaveURL(/\/settings\/library$/);

    // Every Settings tab is in sight, the selected one included; no tab strip to scroll.
    await page.goto('/settings/account');
    const tabs = page.getByRole('navigation', { name: 'Settings sections' });
    await expect(tabs.getByRole('link')).toHaveText(['Library', 'Downloads', 'Playback', 'Integrations', 'Notifications', 'Security', 'Users', 'Account']);
    const strip = (await tabs.boundingBox())!;
    for (const t of await edges(page, 'nav.tabs a')) {
      expect(t.left, `${t.name} tab at ${width} px`).toBeGreaterThanOrEqual(strip.x);
      expect(t.right, `${t.name} tab at ${width} px`).toBeLessThanOrEqual(strip.x + strip.width + 0.5);
    }
    await expect(tabs.getByRole('link', { name: 'Account' })).toHaveAttribute('aria-current', 'page');
    await expect(tabs.getByRole('link', { name: 'Account' })).toBeInViewport({ ratio: 1 });
    // The listening-history choice shows its whole text.
    const select = page.getByLabel('Service', { exact: true });
    expect(await select.evaluate((el: HTMLSelectElement) => el.scrollWidth <= el.clientWidth + 1 && el.getBoundingClientRect().right <= window.innerWidth)).toBe(true);
    console.log(width, await page.evaluate(() => [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).slice(0, 8).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right) + ' ' + (e.textContent ?? '').slice(0, 30))));
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await snap(page, `newcomer-settings-account-${width}`);
    await page.close();
  }
});

test('a plain user is offered only what they may use, and a bookmark says who can grant the rest', async ({ browser }) => {
  expect((await server.call('/api/users', { method: 'POST', json: { username: 'listener', password: 'listener password' } })).status).toBe(201);
  const { token } = (await server.call('/api/auth/login', { method: 'POST', json: { username: 'listener', password: 'listener password' } })).body as { token: string };
  for (const viewport of [{ width: 390, height: 844 }, { width: 1280, height: 800 }]) {
    const page = await openSignedIn(browser, server.url, token, { viewport });
    await page.goto('/library/artists');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('button', { name: /^More/ }).click();
    await expect(nav.getByRole('link', { name: 'Settings' })).toBeVisible();
    for (const hidden of ['Downloads', 'Review', 'Flows', 'Import']) await expect(nav.getByRole('link', { name: hidden, exact: true })).toHaveCount(0);
    await page.goto('/downloads');
    await expect(page.getByText('Ask an administrator to allow downloads for your account')).toBeVisible();
    await page.goto('/review');
    await expect(page.getByText('Ask an administrator to allow downloads and their review for your account')).toBeVisible();
    await expect(page.locator('body')).not.toContainText('accessFlow');
    await expect(page.getByRole('button', { name: 'Try again' })).toHaveCount(0);
    await snap(page, `newcomer-listener-review-${viewport.width}`);
    await page.close();
  }
});
