#!/usr/bin/env node
// `npm test`: makes sure the machine has what the tests need (ffmpeg for generated audio, yt-dlp, a
// Chromium for the browser tests), then runs vitest while the typechecks, the layering check
// (dependency-cruiser) and the UI build run beside it at low priority, checks the SQL rule, then the
// Playwright suite; supysonic for the playback-destination tests. Works on a fresh machine: missing tools come from Debian's packages.
import { spawn, spawnSync } from 'node:child_process';
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

// lame: the direct MP3 reader's tests need CRC-protected frames and a LAME extension header, which
// ffmpeg's libmp3lame wrapper cannot write; the lame program (the same encoder library) can.
if (!onPath('lame')) {
  if (!aptInstall('lame')) console.warn('[test] lame not found and could not be installed; the CRC-protected MP3 variants will be skipped');
}

// supysonic: a real Subsonic server the playback-destination tests publish playlists to.
if (!fs.existsSync('/usr/bin/supysonic-cli')) {
  if (!aptInstall('supysonic')) console.warn('[test] supysonic not found and could not be installed; the supysonic playback tests will be skipped');
}

/**
 * Runs a command in the background at low priority, its output kept and printed once it ends: the
 * typechecks, the layering check and the UI build fill the time the tests leave a core idle (vitest waits on servers,
 * child processes and timers) instead of running before them. `nice` keeps them from slowing the
 * tests; where there is no `nice`, they run at normal priority.
 */
function background(name, cmd, args) {
  const [bin, argv] = process.platform !== 'win32' && onPath('nice') ? ['nice', ['-n', '10', cmd, ...args]] : [cmd, args];
  const started = Date.now();
  const child = spawn(bin, argv, { stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });
  const out = [];
  child.stdout.on('data', (d) => out.push(d));
  child.stderr.on('data', (d) => out.push(d));
  const done = new Promise((resolve) => {
    child.on('error', (err) => {
      out.push(Buffer.from(`${err.message}\n`));
      resolve(1);
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
  let seconds = 0;
  void done.then(() => (seconds = Math.round((Date.now() - started) / 1000)));
  return async () => {
    const code = await done;
    process.stdout.write(Buffer.concat(out));
    console.log(`[test] ${name} ran in the background and took ${seconds} s`);
    return code;
  };
}

const stages = [];
const stage = (name, fn) => stages.push([name, fn]);

const hasUi = fs.existsSync('renderer/tsconfig.json');
const hasBrowserTests = fs.existsSync('test/e2e') && fs.existsSync('renderer/index.html');
const typecheck = background('typecheck', 'npx', ['tsc', '--noEmit', '-p', 'tsconfig.json']);
const typecheckUi = hasUi ? background('typecheck UI', 'npx', ['tsc', '--noEmit', '-p', 'renderer/tsconfig.json']) : null;
const buildUi = hasBrowserTests ? background('UI build', 'npx', ['vite', 'build', 'renderer', '--logLevel', 'warn']) : null;

// The layering of shared/design/architecture.md: imports (dependency-cruiser; rules and their messages in
// .dependency-cruiser.cjs), and SQL only in server/db/ (scripts/check-sql.mjs). dependency-cruiser runs
// in the background beside vitest like the typechecks (it took ~6 s before the suites); its verdict
// is reported after vitest's and fails the run the same way.
const imports = background('dependency-cruiser', 'npx', ['depcruise', 'server', 'main', '--config', '.dependency-cruiser.cjs', '--output-type', 'err-long']);
stage('unit and API tests', () => run('npx', ['vitest', 'run']));
stage('architecture', async () => {
  const sql = run(process.execPath, ['scripts/check-sql.mjs']);
  return (await imports()) || sql;
});
stage('typecheck', typecheck);
if (typecheckUi) stage('typecheck UI', typecheckUi);
if (buildUi) {
  stage('browser tests', async () => {
    if ((await buildUi()) !== 0) return 1;
    const { findChromium } = await import('./chromium.mjs');
    let browser = findChromium();
    if (!browser && aptInstall('chromium')) browser = findChromium();
    if (!browser) {
      console.error('[test] no Chromium found and none could be installed');
      return 1;
    }
    return run('npx', ['playwright', 'test', '-c', 'test/e2e/playwright.config.ts'], {
      env: { ...process.env, TONEARM_CHROMIUM: browser },
    });
  });
}

let failed = 0;
for (const [name, fn] of stages) {
  console.log(`\n[test] ${name}`);
  const started = Date.now();
  const code = await fn();
  console.log(`[test] ${name}: ${code === 0 ? 'ok' : 'failed'} after ${Math.round((Date.now() - started) / 1000)} s`);
  if (code !== 0) {
    console.error(`[test] ${name} failed (exit ${code})`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);
