/**
 * Issue 26 §4: the time to identify one download by its sound, fingerprint (ffmpeg's chromaprint
 * muxer on the tool thread, at TONEARM_BACKGROUND_NICE) plus AcoustID lookup (the fake, on
 * 127.0.0.1, at AcoustID's 3 requests/s). BENCH_FINGERPRINT_FILES (default 6) distinct 4-minute
 * MP3s (BENCH_FINGERPRINT_SECONDS, default 240; the first 120 s are fingerprinted, as fpcalc does)
 * are identified one after another through an in-process test server's AcoustID service, cold
 * (nothing cached). Prints the fingerprint and lookup times (median, max), the whole per file, and
 * the main thread's event-loop lag meanwhile (p99), and writes JSON under bench-results/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { chromaprintOf } from '../server/library/chromaprint.js';
import { startAcoustIdFake } from '../test/fakes/acoustid/index.js';
import { makeMelodyFile } from '../test/fixtures/audio.js';
import { startTestServer } from '../test/helpers/server.js';

const FILES = Number(process.env.BENCH_FINGERPRINT_FILES ?? 6);
const SECONDS = Number(process.env.BENCH_FINGERPRINT_SECONDS ?? 240);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number) => Math.round(x * 10) / 10;

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-fingerprint-'));
  const acoustid = await startAcoustIdFake();
  const files: string[] = [];
  for (let i = 0; i < FILES; i++) {
    const file = makeMelodyFile(path.join(dir, `track${i}.mp3`), 'mp3', { title: `Track ${i}` }, { seed: i, seconds: SECONDS });
    files.push(file);
    // Half are known to AcoustID, half are not (both cost one lookup).
    if (i % 2 === 0) acoustid.seedFile(file, [{ id: `f0000000-0000-4000-8000-${String(i).padStart(12, '0')}`, title: `Track ${i}`, artists: [{ id: 'f0000000-0000-4000-8000-0000000000a1', name: 'Bench' }] }]);
  }
  const server = await startTestServer({ env: { TONEARM_ACOUSTID_URL: acoustid.url } });
  server.ctx.settings.update({ integrations: { acoustid: { apiKey: acoustid.apiKey } } });
  const ffmpeg = process.env.FFMPEG_PATH ?? '/usr/bin/ffmpeg';
  const service = server.ctx.acoustId;
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const fingerprintMs: number[] = [];
  const lookupMs: number[] = [];
  const totalMs: number[] = [];
  let matched = 0;
  for (const file of files) {
    const t0 = performance.now();
    const fp = await chromaprintOf(ffmpeg, file);
    const t1 = performance.now();
    if (!('fingerprint' in fp)) throw new Error(fp.unavailable);
    const found = await service.lookup(fp.fingerprint, SECONDS * 1000);
    const t2 = performance.now();
    if (found.status !== 'ok') throw new Error(found.note);
    if (found.matches.length) matched++;
    fingerprintMs.push(t1 - t0);
    lookupMs.push(t2 - t1);
    totalMs.push(t2 - t0);
  }
  lag.disable();
  const result = {
    files: FILES,
    audioSeconds: SECONDS,
    matched,
    backgroundNice: process.env.TONEARM_BACKGROUND_NICE ?? '10',
    fingerprintMs: { median: round(median(fingerprintMs)), max: round(Math.max(...fingerprintMs)) },
    lookupMs: { median: round(median(lookupMs)), max: round(Math.max(...lookupMs)) },
    perDownloadMs: { median: round(median(totalMs)), max: round(Math.max(...totalMs)) },
    mainThreadLagP99Ms: round(lag.percentile(99) / 1e6),
  };
  console.table({
    fingerprint: result.fingerprintMs,
    'AcoustID lookup': result.lookupMs,
    'per download': result.perDownloadMs,
  });
  console.log(`files ${FILES} × ${SECONDS} s, matched ${matched}; main-thread event-loop lag p99 ${result.mainThreadLagP99Ms} ms`);
  fs.mkdirSync('bench-results', { recursive: true });
  fs.writeFileSync(path.join('bench-results', `fingerprint-${Date.now()}.json`), JSON.stringify(result, null, 2));
  await server.stop();
  await acoustid.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
