import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FFMPEG } from '../fixtures/audio.js';
import { makeRgFile } from '../fixtures/replayGain.js';
import { OFFLINE_UPSTREAMS } from '../helpers/offline.js';
import { waitFor } from '../downloads/helpers.js';

/**
 * kill -9 of the real server (its process group, ffmpeg included) while the ReplayGain task is
 * measuring a library: after a restart the task goes on with the files left, never measures a file
 * again whose values were stored, and ends with every file and the album measured.
 */

const repo = path.resolve(import.meta.dirname, '../..');
const FILES = 24;
let dir: string;
let dataDir: string;
let music: string;
let ffmpegLog: string;
let child: ChildProcess | undefined;

function start(): Promise<string> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
    cwd: repo,
    detached: true,
    env: {
      ...process.env,
      ...OFFLINE_UPSTREAMS,
      LOG_LEVEL: 'warn',
      TONEARM_HOST: '127.0.0.1',
      TONEARM_PORT: '0',
      TONEARM_DATA_DIR: dataDir,
      TONEARM_MUSIC_DIRS: music,
      TONEARM_LIBRARY_WATCH: '0',
      TONEARM_REPLAYGAIN_ANALYSIS: '1',
      FFMPEG_PATH: path.join(dir, 'slow-ffmpeg'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /^listening on (http:\/\/\S+)$/m.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.on('exit', () => reject(new Error(`server exited: ${err}`)));
  });
}

async function killHard(): Promise<void> {
  const proc = child!;
  const exited = new Promise((r) => proc.once('exit', r));
  process.kill(-proc.pid!, 'SIGKILL');
  await exited;
  child = undefined;
}

function query<T>(sql: string): T[] {
  const file = path.join(dataDir, 'tonearm.db');
  if (!fs.existsSync(file)) return [];
  const d = new Database(file, { timeout: 5000, readonly: true });
  try {
    return d.prepare(sql).all() as T[];
  } catch {
    return []; // not migrated yet
  } finally {
    d.close();
  }
}

const measured = () => query<{ path: string }>(`SELECT path FROM library_media_files WHERE rg_source = 'analysis'`).map((r) => r.path);
/** Files each ffmpeg run of the ReplayGain task measured (the wrapper logs its input). */
const measuredRuns = () => (fs.existsSync(ffmpegLog) ? fs.readFileSync(ffmpegLog, 'utf8').split('\n').filter(Boolean) : []);

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-rg-kill-'));
  dataDir = path.join(dir, 'data');
  music = path.join(dir, 'music');
  ffmpegLog = path.join(dir, 'ffmpeg.log');
  // An ffmpeg that takes its time while the `slow` file exists, so a kill lands in the middle of the
  // run (the test removes it after the kill: the rest of the run need not wait); it logs each measured file.
  fs.writeFileSync(path.join(dir, 'slow'), '');
  fs.writeFileSync(
    path.join(dir, 'slow-ffmpeg'),
    `#!/bin/sh\ncase "$*" in *ebur128*) prev=""; for a; do [ "$prev" = "-i" ] && echo "$a" >> "${ffmpegLog}"; prev="$a"; done; [ -e "${path.join(dir, 'slow')}" ] && sleep 0.25;; esac\nexec ${FFMPEG} "$@"\n`,
    { mode: 0o755 },
  );
  for (let i = 1; i <= FILES; i++) {
    makeRgFile(path.join(music, 'Kill', 'Album', `${String(i).padStart(2, '0')}.flac`), 'flac', { title: `Track ${i}`, album: 'Album', artist: 'Kill', track: i }, {}, {
      seconds: 1,
      volume: 0.1 + (i % 5) * 0.1,
    });
  }
}, 60_000);

afterAll(async () => {
  if (child) await killHard();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('ReplayGain analysis after kill -9', () => {
  it('goes on with the files left and measures no stored file again', async () => {
    await start();
    await waitFor(() => measured().length >= 3 || null, 60_000, 'the first measurements');
    await killHard();
    const before = new Set(measured());
    expect(before.size).toBeLessThan(FILES);
    const runsBefore = measuredRuns().length;

    fs.rmSync(path.join(dir, 'slow'));
    await start();
    await waitFor(() => measured().length === FILES || null, 90_000, 'every file measured');
    await waitFor(() => query<{ n: number }>(`SELECT COUNT(*) AS n FROM library_media_files WHERE rg_album_source = 'analysis'`)[0]?.n === FILES || null, 20_000, 'album values');
    const again = measuredRuns().slice(runsBefore).filter((f) => before.has(f));
    expect(again).toEqual([]);
    const albumGains = query<{ g: number }>(`SELECT DISTINCT rg_album_gain AS g FROM library_media_files`);
    expect(albumGains).toHaveLength(1);
  }, 180_000);
});
