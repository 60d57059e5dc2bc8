#!/usr/bin/env node
// `npm test`: makes sure the machine has what the tests need (ffmpeg for generated audio, yt-dlp, a
// Chromium for the browser tests), then typechecks, runs vitest, builds the UI and runs the
// Playwright suite; supysonic for the playback-destination tests. Works on a fresh machine: missing tools come from Debian's packages.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const run = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  return r.status ?? 1;
};
const onPath = (bin) =>
  (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir && fs.existsSync(path.join(dir, bin)));

// TONEARM_TEST_INSTALL=false: never touch the system; missing tools are reported instead.
const mayInstall = !/^(0|false|no|off)$/i.test(process.env.TONEARM_TEST_INSTALL ?? '');

let aptUpdated = false;
function aptInstall(pkg) {
  if (!mayInstall) {
    console.warn(`[test] ${pkg} is missing and TONEARM_TEST_INSTALL is off; not installing it`);
    return false;
  }
  if (process.platform !== 'linux' || !onPath('apt-get')) return false;
  const sudo = process.getuid?.() === 0 ? [] : onPath('sudo') ? ['sudo', '-n'] : null;
  if (!sudo) return false;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!aptUpdated) {
    run(sudo[0] ?? 'apt-get', [...sudo.slice(1), ...(sudo.length ? ['apt-get'] : []), 'update', '-qq'], { env });
    aptUpdated = true;
  }
  console.log(`[test] installing ${pkg} from Debian's packages`);
  return run(sudo[0] ?? 'apt-get', [...sudo.slice(1), ...(sudo.length ? ['apt-get'] : []), 'install', '-y', '-qq', '--no-install-recommends', pkg], { env }) === 0;
}

if (!onPath('ffmpeg') && !process.env.FFMPEG_PATH) {
  if (!aptInstall('ffmpeg')) console.warn('[test] ffmpeg not found and could not be installed; audio fixtures will fail');
}
// Acoustic fingerprints (AcoustID) are computed by ffmpeg's chromaprint muxer, which Debian's ffmpeg has.
{
  const ff = process.env.FFMPEG_PATH ?? 'ffmpeg';
  const muxers = spawnSync(ff, ['-hide_banner', '-muxers'], { encoding: 'utf8' });
  if (muxers.status === 0 && !/\bchromaprint\b/.test(muxers.stdout)) console.warn(`[test] ${ff} has no chromaprint muxer; the fingerprint tests will fail (Debian's ffmpeg has it)`);
}
// yt-dlp: the yt-dlp source's tests drive the real program against a local HTTP server.
if (!onPath('yt-dlp') && !process.env.TONEARM_YTDLP_PATH) {
  if (!aptInstall('yt-dlp')) console.warn('[test] yt-dlp not found and could not be installed; the yt-dlp tests will fail');
}

// supysonic: a real Subsonic server the playback-destination tests publish playlists to.
if (!fs.existsSync('/usr/bin/supysonic-cli')) {
  if (!aptInstall('supysonic')) console.warn('[test] supysonic not found and could not be installed; the supysonic playback tests will be skipped');
}

const stages = [];
const stage = (name, fn) => stages.push([name, fn]);

stage('typecheck', () => run('npx', ['tsc', '--noEmit', '-p', 'tsconfig.json']));
if (fs.existsSync('renderer/tsconfig.json')) stage('typecheck UI', () => run('npx', ['tsc', '--noEmit', '-p', 'renderer/tsconfig.json']));
stage('unit and API tests', () => run('npx', ['vitest', 'run']));
if (fs.existsSync('test/e2e') && fs.existsSync('renderer/index.html')) {
  stage('browser tests', async () => {
    const { findChromium } = await import('./chromium.mjs');
    let browser = findChromium();
    if (!browser && aptInstall('chromium')) browser = findChromium();
    if (!browser) {
      console.error('[test] no Chromium found and none could be installed');
      return 1;
    }
    if (run('npx', ['vite', 'build', 'renderer', '--logLevel', 'warn']) !== 0) return 1;
    return run('npx', ['playwright', 'test', '-c', 'test/e2e/playwright.config.ts'], {
      env: { ...process.env, TONEARM_CHROMIUM: browser },
    });
  });
}

let failed = 0;
for (const [name, fn] of stages) {
  console.log(`\n[test] ${name}`);
  const code = await fn();
  if (code !== 0) {
    console.error(`[test] ${name} failed (exit ${code})`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);
