import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeAudioFile, makeCoverImage } from '../fixtures/audio.js';
import { startCoverArtFake } from '../fakes/coverart/index.js';
import { startLidarrFake } from '../fakes/lidarr/index.js';
import { startMusicBrainzFake } from '../fakes/musicbrainz/index.js';
import { catalogue } from '../fixtures/catalogue.js';
import { OFFLINE_UPSTREAMS } from '../helpers/offline.js';
import { LIBRARY } from './library.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');

/** Tagged sine tones in artist/album folders; one album gets a folder cover image. */
function makeMusic(dir: string): void {
  let frequency = 330;
  for (const album of LIBRARY) {
    const folder = path.join(dir, album.artist, album.album);
    if (album.cover) makeCoverImage(path.join(folder, 'cover.png'), album.cover);
    album.tracks.forEach((title, i) => {
      makeAudioFile(
        path.join(folder, `${String(i + 1).padStart(2, '0')} ${title}.mp3`),
        'mp3',
        { title, artist: album.artist, albumArtist: album.artist, album: album.album, track: i + 1, genre: album.genre, date: album.year },
        { seconds: 8, frequency: (frequency += 55) },
      );
    });
  }
}

/** Starts a real server on a free port with an empty data folder; reads its ready line for the URL. */
export function startServer(dataDir: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      // No spec reaches a public service: each points at a closed port unless the spec passes a fake's URL.
      ...OFFLINE_UPSTREAMS,
      TONEARM_PORT: '0',
      TONEARM_HOST: '127.0.0.1',
      TONEARM_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      // No test reaches YouTube: the real yt-dlp on PATH is not a download source unless a spec names one.
      YTDLP_PATH: path.join(dataDir, 'no-yt-dlp'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`server did not start in 30 s\n${out}\n${err}`)), 30_000);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      process.stderr.write(`[server] ${d.toString()}`);
    });
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]! });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}\n${out}\n${err}`));
    });
  });
}

export default async function globalSetup() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-e2e-'));
  const music = path.join(tmp, 'music');
  const data = path.join(tmp, 'data');
  const envMusic = path.join(tmp, 'env-music');
  fs.mkdirSync(data);
  fs.mkdirSync(envMusic);
  makeMusic(music);
  // A local Lidarr for the wizard's optional Lidarr step.
  const lidarr = await startLidarrFake();
  process.env.TONEARM_E2E_LIDARR_URL = lidarr.url;
  process.env.TONEARM_E2E_LIDARR_KEY = lidarr.apiKey;
  // MusicBrainz and the Cover Art Archive are local fakes: the metadata pages never reach the internet.
  const musicbrainz = await startMusicBrainzFake(structuredClone(catalogue));
  const coverart = await startCoverArtFake();
  // A music folder given by the environment (empty, so the library stays as the tests build it).
  const { child, url } = await startServer(data, {
    TONEARM_MUSIC_DIRS: envMusic,
    TONEARM_MUSICBRAINZ_URL: musicbrainz.url,
    TONEARM_COVERART_URL: coverart.url,
    TONEARM_UPSTREAM_SPACING_MS: '0',
  });
  child.removeAllListeners('exit');
  process.env.TONEARM_E2E_URL = url;
  process.env.TONEARM_E2E_MUSIC = music;
  process.env.TONEARM_E2E_ENV_MUSIC = envMusic;
  fs.mkdirSync(path.join(repoRoot, 'test-results/e2e/screens'), { recursive: true });

  return async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 6000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    await Promise.all([lidarr.close(), musicbrainz.close(), coverart.close()]);
    fs.rmSync(tmp, { recursive: true, force: true });
  };
}
