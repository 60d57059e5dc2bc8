// Finds a Chromium for Playwright: Playwright's own download where one exists, else the system's.
import fs from 'node:fs';
import { createRequire } from 'node:module';

export function findChromium() {
  if (process.env.TONEARM_CHROMIUM && fs.existsSync(process.env.TONEARM_CHROMIUM)) return process.env.TONEARM_CHROMIUM;
  try {
    const require = createRequire(import.meta.url);
    const { chromium } = require('playwright-core');
    const own = chromium.executablePath();
    if (own && fs.existsSync(own)) return own;
  } catch {
    // playwright-core not installed or no browser downloaded
  }
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable']) {
    if (fs.existsSync(p)) return p;
  }
  return null;
}
