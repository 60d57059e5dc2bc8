import path from 'node:path';
import { expect, type Page } from '@playwright/test';

export const ADMIN = { username: 'admin', password: 'correct horse battery' };
/** The administrator's password after the account test of tonearm.spec.ts changes it. */
export const ADMIN_NEW_PASSWORD = 'an even better horse';
/** A user who is not an administrator, made by tonearm.spec.ts. */
export const LISTENER = { username: 'listener', password: 'listener password' };

export function baseUrl(): string {
  const url = process.env.TONEARM_E2E_URL;
  if (!url) throw new Error('TONEARM_E2E_URL is not set: the global setup did not start the server');
  return url;
}

export function musicDir(): string {
  return process.env.TONEARM_E2E_MUSIC!;
}

/** The music folder the server was given in TONEARM_MUSIC_DIRS. */
export function envMusicDir(): string {
  return process.env.TONEARM_E2E_ENV_MUSIC!;
}

const screensDir = path.resolve(import.meta.dirname, '../../test-results/e2e/screens');

/** Keeps a full-page screenshot of the current screen as a test artifact. */
export async function snap(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(screensDir, `${name}.png`), fullPage: true });
}

/** Current state of the page's audio element. */
export function audioState(page: Page) {
  return page.locator('audio[data-testid="audio"]').evaluate((el: HTMLAudioElement) => ({
    currentTime: el.currentTime,
    paused: el.paused,
    error: el.error ? el.error.code : null,
    src: el.currentSrc,
  }));
}

/** Follows a main-navigation entry, opening the "More" menu first when the entry lives there. */
export async function goByNav(page: Page, name: string, how: 'click' | 'tap' = 'click'): Promise<void> {
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav).toBeVisible();
  // An entry's name may carry a count ("Inbox, 3 unread").
  const link = nav.getByRole('link', { name: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(,|$)`) });
  if (!(await link.isVisible())) await nav.getByRole('button', { name: /^More/ })[how]();
  await link[how]();
}
