/**
 * ReplayGain analysis (issue 26 §3–4; `npm run bench:replaygain`, not part of `npm test`). Generates
 * BENCH_RG_FILES (default 20,000) untagged MP3s of BENCH_RG_SECONDS seconds (default 30; real
 * 64 kbps audio, each with its own ID3 tag) in 10-track albums, scans them with the analysis off,
 * samples `/api/health/live` and `/rest/getAlbumList2` while idle, then restarts the server on the
 * same data folder with the analysis on and samples both again for BENCH_RG_WINDOW seconds (default
 * 60) while it measures. Reports the analysis throughput (files/s), the latencies idle and during
 * the analysis (targets: live p99 ≤ 20 ms, getAlbumList2 p95 ≤ 25 ms) and the time to measure one
 * 4-minute download before filing (replayGainForDownload). Writes JSON under bench-results/.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { replayGainStore } from '../server/db/replayGain.js';
import { scanRuns } from '../server/db/libraryScanRuns.js';
import { measureLoudness, analysisConcurrency } from '../server/domain/library/replayGain.js';
import { ADMIN, startTestServer, type TestServer } from '../test/helpers/server.js';
import { FFMPEG, makeMp3Template, writeTaggedMp3 } from '../test/fixtures/audio.js';

const FILES = Number(process.env.BENCH_RG_FILES ?? 20_000);
const SECONDS = Number(process.env.BENCH_RG_SECONDS ?? 30);
const WINDOW = Number(process.env.BENCH_RG_WINDOW ?? 60);
const IDLE_WINDOW = Number(process.env.BENCH_RG_IDLE_WINDOW ?? 10);

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! * 100) / 100 : NaN;
};

async function waitForScans(server: TestServer): Promise<void> {
  await new Promise((r) => setTimeout(r, 100));
  while (scanRuns.running(server.ctx.db) || scanRuns.queued(server.ctx.db)) await new Promise((r) => setTimeout(r, 200));
}

/** Requests one after another for `seconds`: live every round, getAlbumList2 every round. */
async function sample(server: TestServer, seconds: number) {
  const live: number[] = [];
  const albums: number[] = [];
  const salt = 'bench1';
  const token = createHash('md5').update(ADMIN.password + salt).digest('hex');
  const rest = `${server.url}/rest/getAlbumList2?u=${ADMIN.username}&t=${token}&s=${salt}&v=1.16.1&c=bench&f=json&type=newest&size=50`;
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const until = performance.now() + seconds * 1000;
  let offset = 0;
  while (performance.now() < until) {
    let t = performance.now();
    const a = await fetch(`${server.url}/api/health/live`);
    await a.arrayBuffer();
    live.push(performance.now() - t);
    t = performance.now();
    const b = await fetch(rest.replace('size=50', `size=50&offset=${(offset = (offset + 50) % 1000)}`));
    await b.arrayBuffer();
    albums.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 20));
  }
  lag.disable();
  return {
    requests: live.length,
    liveP50: pct(live, 0.5),
    liveP99: pct(live, 0.99),
    albumList2P50: pct(albums, 0.5),
    albumList2P95: pct(albums, 0.95),
    lagP99: Math.round((lag.percentile(99) / 1e6) * 100) / 100,
  };
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-bench-rg-'));
  const music = path.join(dir, 'music');
  const dataDir = path.join(dir, 'data');
  fs.mkdirSync(dataDir);
  const result: Record<string, unknown> = { files: FILES, fileSeconds: SECONDS, cores: os.cpus().length, concurrency: analysisConcurrency(), loadavgAtStart: os.loadavg() };
  try {
    console.log(`generating ${FILES} files of ${SECONDS} s…`);
    const template = makeMp3Template(dir, SECONDS);
    for (let i = 0; i < FILES; i++) {
      const album = Math.floor(i / 10);
      writeTaggedMp3(path.join(music, `Artist ${album % 500}`, `Album ${album}`, `${(i % 10) + 1}.mp3`), template, {
        title: `Track ${i}`, artist: `Artist ${album % 500}`, albumArtist: `Artist ${album % 500}`, album: `Album ${album}`, track: (i % 10) + 1,
      });
    }

    // One download of 4 minutes, measured before filing.
    const download = path.join(dir, 'download.mp3');
    fs.writeFileSync(download, makeMp3Template(dir, 240));
    const d0 = performance.now();
    const one = await measureLoudness(FFMPEG, download);
    result.oneDownloadMs = Math.round(performance.now() - d0);
    result.oneDownload = one;

    console.log('scanning with the analysis off…');
    let server = await startTestServer({ dataDir, musicDirs: [music], env: { TONEARM_LIBRARY_WATCH: '0', TONEARM_REPLAYGAIN_ANALYSIS: '0' } });
    const s0 = performance.now();
    await waitForScans(server);
    result.scanSeconds = Math.round((performance.now() - s0) / 100) / 10;
    result.idle = await sample(server, IDLE_WINDOW);
    await server.stop();

    console.log('analysing…');
    server = await startTestServer({ dataDir, musicDirs: [music], env: { TONEARM_LIBRARY_WATCH: '0', TONEARM_REPLAYGAIN_ANALYSIS: '1', TONEARM_SCAN_ON_START: '0' } });
    const pendingAtStart = replayGainStore.pendingCount(server.ctx.db);
    const t0 = performance.now();
    // The run starts at once (work left from before); wait for its first result.
    while (replayGainStore.pendingCount(server.ctx.db) === pendingAtStart && performance.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 50));
    const p0 = replayGainStore.pendingCount(server.ctx.db);
    const w0 = performance.now();
    result.during = await sample(server, WINDOW);
    const measured = p0 - replayGainStore.pendingCount(server.ctx.db);
    const seconds = (performance.now() - w0) / 1000;
    result.measuredInWindow = measured;
    result.filesPerSecond = Math.round((measured / seconds) * 100) / 100;
    result.audioSecondsPerSecond = Math.round(((measured * SECONDS) / seconds) * 10) / 10;
    result.loadavgAtEnd = os.loadavg();
    await server.stop();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const during = result.during as { liveP99: number; albumList2P95: number };
  result.pass = { liveP99: during.liveP99 <= 20, albumList2P95: during.albumList2P95 <= 25 };
  console.log(JSON.stringify(result, null, 2));
  const out = path.join(process.cwd(), 'bench-results');
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, `replaygain-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(result, null, 2));
}

await main();
process.exit(0);
