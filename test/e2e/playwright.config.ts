import path from 'node:path';
import { defineConfig } from '@playwright/test';

// `npm test` sets TONEARM_CHROMIUM (scripts/chromium.mjs): Playwright's own browser or the system's.
const executablePath = process.env.TONEARM_CHROMIUM ?? '/usr/bin/chromium';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  // The first day (onboarding onwards) runs first; later specs sign in to the library it built.
  projects: [
    { name: 'first-day', testMatch: 'tonearm.spec.ts' },
    { name: 'after-first-day', testMatch: 'first-use.spec.ts', dependencies: ['first-day'] },
    // Starts a server of its own.
    { name: 'browse', testMatch: 'browse.spec.ts' },
    // Starts a server of its own with MusicBrainz, Cover Art Archive and Lidarr fakes.
    { name: 'metadata', testMatch: 'metadata.spec.ts' },
    // Starts a server of its own and a real OpenID provider (oidc-provider).
    { name: 'sso', testMatch: 'sso.spec.ts' },
    // Starts a server of its own with slskd, Prowlarr, SABnzbd and NZBGet fakes.
    { name: 'downloads', testMatch: 'downloads.spec.ts' },
    // Starts a server of its own with Last.fm, ListenBrainz, Deezer and MusicBrainz fakes (Discover, Flows, Playlists, Inbox, News).
    { name: 'growth', testMatch: 'growth.spec.ts' },
    // Starts a server of its own under TONEARM_BASE_PATH=/music behind a small reverse proxy.
    { name: 'base-path', testMatch: 'base-path.spec.ts' },
    // Starts a server of its own with ReplayGain-tagged files (the web player's volume levelling).
    { name: 'replaygain', testMatch: 'replaygain.spec.ts' },
    // Starts a server of its own and runs `npm run reset-password` against its data folder.
    { name: 'password-reset', testMatch: 'password-reset.spec.ts' },
    // Starts a server of its own: a newcomer's first hour (menus at every width, rights, set-up states).
    { name: 'newcomer', testMatch: 'newcomer.spec.ts' },
    // Starts a server of its own with the Jellyfin fake (Settings → Playback).
    { name: 'jellyfin', testMatch: 'jellyfin.spec.ts' },
  ],
  outputDir: path.join(import.meta.dirname, '../../test-results/e2e'),
  globalSetup: './global-setup.ts',
  fullyParallel: false,
  // Specs with servers of their own run beside the first day (two workers: 7.3 -> 5.4 min on this
  // 2-core machine while it was shared with other jobs); tests within a spec stay in order.
  workers: 2,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list'], ['html', { open: 'never', outputFolder: '../../playwright-report' }]] : 'list',
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-quic',
        '--no-first-run',
        '--disable-sync',
        '--autoplay-policy=no-user-gesture-required',
      ],
    },
  },
});
