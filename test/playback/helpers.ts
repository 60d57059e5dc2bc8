import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { playlistsRepository } from '../../server/db/playlists.js';
import { StaticPlaylists } from '../../server/domain/playlists/staticPlaylists.js';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import type { TestServer } from '../helpers/server.js';

export interface LibraryFile {
  /** Relative to the music folder. */
  rel: string;
  title: string;
  /** Its MusicBrainz recording id tag, when it has one. */
  mbid?: string;
  artist: string;
  album: string;
  track: number;
}

/** A music folder of tagged mp3s: `Artist N/Album N/NN - Title.mp3`. */
export function makeLibrary(music: string, count: number, perAlbum = 10, mbidOf: (n: number) => string | undefined = () => undefined): LibraryFile[] {
  const template = makeMp3Template(path.join(music, '..', 'templates'));
  const files: LibraryFile[] = [];
  for (let i = 0; i < count; i++) {
    const album = Math.floor(i / perAlbum);
    const f: LibraryFile = {
      artist: `Harbor Lights ${Math.floor(album / 3) + 1}`,
      album: `Salt Roads ${album + 1}`,
      title: `Night Song ${i + 1}`,
      track: (i % perAlbum) + 1,
      rel: '',
    };
    f.rel = `${f.artist}/${f.album}/${String(f.track).padStart(2, '0')} - ${f.title}.mp3`;
    const mbid = mbidOf(i + 1);
    if (mbid) f.mbid = mbid;
    writeTaggedMp3(path.join(music, f.rel), template, { title: f.title, artist: f.artist, album: f.album, track: f.track, ...(mbid && { musicbrainzRecordingId: mbid }) });
    files.push(f);
  }
  return files;
}

export function staticPlaylists(server: TestServer): StaticPlaylists {
  return new StaticPlaylists(playlistsRepository(server.ctx.db), server.ctx.clock, server.ctx.playlists);
}

/** Library track ids by title. */
export function trackIdsByTitle(server: TestServer): Map<string, number> {
  const rows = server.ctx.db.prepare('SELECT id, title FROM library_tracks').all() as Array<{ id: number; title: string }>;
  return new Map(rows.map((r) => [r.title, r.id]));
}

export async function waitFor<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Publications of a destination, straight from the table. */
export function publications(server: TestServer, destination = 'navidrome') {
  return server.ctx.db.prepare('SELECT * FROM playback_publications WHERE destination = ? ORDER BY playlist_id').all(destination) as Array<{
    playlist_id: string;
    remote_id: string | null;
    remote_name: string | null;
    want_seq: number;
    done_seq: number;
    last_error: string | null;
    matched_count: number;
    track_count: number;
  }>;
}

export async function configureNavidrome(server: TestServer, url: string, username: string, password: string, playback: Record<string, unknown> = {}) {
  const res = await server.api('/api/settings', {
    method: 'POST',
    token: server.admin.token,
    json: { integrations: { navidrome: { url, username, password } }, playback: { navidrome: { enabled: true, scanTimeoutSeconds: 10, ...playback } } },
  });
  if (res.status !== 200) throw new Error(`settings: ${res.status} ${await res.text()}`);
}

// ---- supysonic -----------------------------------------------------------------------------

const PYTHON = '/usr/bin/python3';
export const SUPYSONIC_CLI = '/usr/bin/supysonic-cli';

/** Why supysonic cannot run here, or null when it can. */
export function supysonicMissing(): string | null {
  if (!fs.existsSync(SUPYSONIC_CLI)) return 'supysonic is not installed (npm test installs it with apt: apt-get install supysonic)';
  const r = spawnSync(PYTHON, ['-c', 'import supysonic.web, werkzeug.serving'], { encoding: 'utf8' });
  return r.status === 0 ? null : `supysonic's Python modules do not load: ${r.stderr.trim().split('\n').pop()}`;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface Supysonic {
  url: string;
  username: string;
  password: string;
  /** Scans the folder in the foreground (files added after the start). */
  scan(): void;
  close(): Promise<void>;
}

/**
 * A real supysonic on 127.0.0.1: a generated config (sqlite in `dir`), an admin user, the music
 * folder scanned, its scanner daemon (for startScan) and its WSGI app served by werkzeug.
 */
export async function startSupysonic(dir: string, music: string, username = 'tonearm', password = 'süpy pass 1'): Promise<Supysonic> {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'supysonic.conf'),
    [
      '[base]',
      `database_uri = sqlite:///${path.join(dir, 'supysonic.db')}`,
      '[webapp]',
      `cache_dir = ${path.join(dir, 'cache')}`,
      'mount_webui = off',
      'log_level = WARNING',
      '[daemon]',
      `socket = ${path.join(dir, 'daemon.sock')}`,
      'run_watcher = no',
      'log_level = WARNING',
      '',
    ].join('\n'),
  );
  // Supysonic reads ./supysonic.conf and ~/.supysonic: cwd and HOME are the temporary folder.
  const env = { ...process.env, HOME: dir };
  const cli = (...args: string[]) => {
    const r = spawnSync(SUPYSONIC_CLI, args, { cwd: dir, env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`supysonic-cli ${args.join(' ')}: ${r.stderr || r.stdout}`);
  };
  cli('user', 'add', username, '--password', password);
  cli('user', 'setroles', '--admin', username);
  cli('folder', 'add', 'music', music);
  cli('folder', 'scan', '--foreground', 'music');
  const port = await freePort();
  const children: ChildProcess[] = [];
  children.push(spawn('/usr/bin/supysonic-daemon', [], { cwd: dir, env, stdio: 'ignore' }));
  const server = spawn(
    PYTHON,
    ['-c', 'import sys\nfrom werkzeug.serving import run_simple\nfrom supysonic.web import create_application\nrun_simple("127.0.0.1", int(sys.argv[1]), create_application(), threaded=True)', String(port)],
    { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  server.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  children.push(server);
  const url = `http://127.0.0.1:${port}`;
  const pass = `enc:${Buffer.from(password).toString('hex')}`;
  await waitFor(`supysonic on ${url} (${stderr})`, async () => {
    if (server.exitCode !== null) throw new Error(`supysonic exited: ${stderr}`);
    const res = await fetch(`${url}/rest/ping?u=${username}&p=${pass}&v=1.10.2&c=t&f=json`).catch(() => null);
    return res?.ok ? true : false;
  }, 20_000);
  await waitFor('supysonic daemon socket', () => fs.existsSync(path.join(dir, 'daemon.sock')), 10_000);
  return {
    url,
    username,
    password,
    scan: () => cli('folder', 'scan', '--foreground', 'music'),
    async close() {
      for (const child of children) {
        if (child.exitCode !== null || child.pid === undefined) continue;
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    },
  };
}

/** A plain Subsonic call with the encoded password (what supysonic accepts), for checking results. */
export async function subsonic(base: { url: string; username: string; password: string }, method: string, params: Record<string, string> = {}) {
  const q = new URLSearchParams({ u: base.username, p: `enc:${Buffer.from(base.password).toString('hex')}`, v: '1.10.2', c: 'tests', f: 'json', ...params });
  const body = (await (await fetch(`${base.url}/rest/${method}?${q}`)).json()) as { 'subsonic-response': any };
  const r = body['subsonic-response'];
  if (r.status !== 'ok') throw new Error(`${method}: ${JSON.stringify(r.error)}`);
  return r;
}

export const asList = <T>(v: T | T[] | undefined): T[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);
