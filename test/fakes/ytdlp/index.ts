import fs from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { makeAudioFile } from '../../fixtures/audio.js';

/**
 * yt-dlp for tests, mostly the real one. A local HTTP server on 127.0.0.1 serves real audio files
 * (made by ffmpeg) that the real yt-dlp's generic extractor downloads and `-x` extracts. Only
 * `ytsearchN:` (which needs YouTube) is answered by a wrapper: an executable `yt-dlp` in `binDir`
 * that prints NDJSON search entries pointing at the local server, read from a JSON state file the
 * test controls, and `exec`s the real `/usr/bin/yt-dlp` with the same arguments for everything
 * else.
 *
 * Using it: pass `bin` as `YTDLP_PATH` to `startTestServer({ env })` (or set the
 * `integrations.ytdlp.path` setting to it), or put `binDir` first on PATH for child processes.
 *
 * Served paths: `/media/<file>` (whole files, Range supported), `/slow/<file>` (trickled by
 * `throttle`), `/status/<code>/<file>` (answers that HTTP status).
 */

export interface FakeYtdlpEntry {
  title: string;
  id?: string;
  uploader?: string;
  channel?: string;
  artist?: string;
  track?: string;
  album?: string;
  /** Seconds; default the served file's own length. */
  duration?: number;
  /** A served file: `tone.mp3` (3 s) or `tone.m4a` (2 s), or one added with `addFile`. Default `tone.mp3`. */
  file?: string;
  /** Serve the file slowly (`/slow/`), e.g. to abort a download mid-way. */
  slow?: boolean;
  /** Answer this HTTP status instead of the file (e.g. 404). */
  status?: number;
  /** A URL of its own (overrides file/slow/status). */
  url?: string;
  /** Only listed for searches whose query contains this text (case-insensitive); default every search. */
  match?: string;
  liveStatus?: string;
  acodec?: string;
  abr?: number;
  ext?: string;
}

interface WrapperState {
  entries: Record<string, unknown>[];
  searchFail: { exitCode: number; message: string } | null;
  searchDelayMs: number;
}

export interface YtdlpFake {
  /** Folder holding the `yt-dlp` wrapper (put first on PATH). */
  binDir: string;
  /** The wrapper itself (for YTDLP_PATH or the setting). */
  bin: string;
  /** The local media server's root, e.g. `http://127.0.0.1:PORT`. */
  url: string;
  /** The real yt-dlp the wrapper hands everything but searches to. */
  realBinary: string;
  /** Seconds of each served file by name. */
  durations: Record<string, number>;
  /** Trickle speed of `/slow/` paths. */
  throttle: { chunkBytes: number; intervalMs: number };
  /** Paths the media server was asked for (method and path). */
  requests: { method: string; path: string }[];
  /** Replaces the search results. */
  setEntries(entries: FakeYtdlpEntry[]): void;
  /** The URL a served file would have. */
  mediaUrl(file: string, options?: { slow?: boolean; status?: number }): string;
  /** The next searches exit with this code and `ERROR: <message>` on stderr until `clearFailures`. */
  failSearch(message?: string, exitCode?: number): void;
  /** Searches wait this long before answering (timeouts, aborts). */
  delaySearch(ms: number): void;
  clearFailures(): void;
  /** Serves another file under `/media/<name>`. */
  addFile(name: string, content: Buffer, durationSeconds: number): void;
  /** Each run of the wrapper: its arguments. */
  calls(): string[][];
  stop(): Promise<void>;
}

const TYPES: Record<string, string> = { mp3: 'audio/mpeg', m4a: 'audio/mp4', ogg: 'audio/ogg', opus: 'audio/ogg', flac: 'audio/flac' };

export async function startYtdlpFake(options: { entries?: FakeYtdlpEntry[]; realBinary?: string } = {}): Promise<YtdlpFake> {
  const realBinary = options.realBinary ?? process.env.TONEARM_REAL_YTDLP ?? '/usr/bin/yt-dlp';
  if (!fs.existsSync(realBinary)) throw new Error(`the yt-dlp fake needs the real yt-dlp at ${realBinary} (Debian package yt-dlp; npm test installs it)`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-ytdlp-fake-'));
  const binDir = path.join(root, 'bin');
  const mediaDir = path.join(root, 'media');
  fs.mkdirSync(binDir, { recursive: true });
  fs.mkdirSync(mediaDir, { recursive: true });

  const durations: Record<string, number> = { 'tone.mp3': 3, 'tone.m4a': 2 };
  makeAudioFile(path.join(mediaDir, 'tone.mp3'), 'mp3', { title: 'Tone', artist: 'Fake Artist' }, { seconds: 3 });
  makeAudioFile(path.join(mediaDir, 'tone.m4a'), 'm4a', { title: 'Tone', artist: 'Fake Artist' }, { seconds: 2, frequency: 660 });

  const throttle = { chunkBytes: 2048, intervalMs: 100 };
  const requests: { method: string; path: string }[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => void serve(req, res));
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  async function serve(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://fake');
    requests.push({ method: req.method ?? 'GET', path: url.pathname });
    const m = /^\/(media|slow|status\/(\d{3}))\/([^/]+)$/.exec(url.pathname);
    const name = m ? decodeURIComponent(m[3]!) : '';
    if (!m || name.startsWith('.')) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    if (m[2]) return void res.writeHead(Number(m[2]), { 'content-type': 'text/plain' }).end(`status ${m[2]}`);
    const file = path.join(mediaDir, name);
    let body: Buffer;
    try {
      body = fs.readFileSync(file);
    } catch {
      return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
    const type = TYPES[path.extname(name).slice(1)] ?? 'application/octet-stream';
    let start = 0;
    let end = body.length - 1;
    let status = 200;
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
    if (range && (range[1] || range[2])) {
      start = range[1] ? Number(range[1]) : Math.max(0, body.length - Number(range[2]));
      end = range[1] && range[2] ? Math.min(end, Number(range[2])) : end;
      if (start > end || start >= body.length) return void res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
      status = 206;
    }
    const headers: Record<string, string> = { 'content-type': type, 'content-length': String(end - start + 1), 'accept-ranges': 'bytes' };
    if (status === 206) headers['content-range'] = `bytes ${start}-${end}/${body.length}`;
    res.writeHead(status, headers);
    if (req.method === 'HEAD') return void res.end();
    const part = body.subarray(start, end + 1);
    if (m[1] !== 'slow') return void res.end(part);
    for (let at = 0; at < part.length && !res.destroyed; at += throttle.chunkBytes) {
      res.write(part.subarray(at, at + throttle.chunkBytes));
      await new Promise((r) => setTimeout(r, throttle.intervalMs));
    }
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const stateFile = path.join(root, 'state.json');
  const callsFile = path.join(root, 'calls.log');
  const state: WrapperState = { entries: [], searchFail: null, searchDelayMs: 0 };
  const save = () => fs.writeFileSync(stateFile, JSON.stringify(state));

  const mediaUrl = (file: string, o: { slow?: boolean; status?: number } = {}) =>
    `${base}/${o.status ? `status/${o.status}` : o.slow ? 'slow' : 'media'}/${encodeURIComponent(file)}`;

  let counter = 0;
  const setEntries = (entries: FakeYtdlpEntry[]) => {
    state.entries = entries.map((e) => {
      const file = e.file ?? 'tone.mp3';
      const url = e.url ?? mediaUrl(file, e);
      return {
        _type: 'url',
        ie_key: 'Generic',
        id: e.id ?? `fake${++counter}`,
        title: e.title,
        url,
        webpage_url: url,
        original_url: url,
        uploader: e.uploader ?? null,
        channel: e.channel ?? e.uploader ?? null,
        ...(e.artist && { artist: e.artist }),
        ...(e.track && { track: e.track }),
        ...(e.album && { album: e.album }),
        ...(e.acodec && { acodec: e.acodec }),
        ...(e.abr !== undefined && { abr: e.abr }),
        ...(e.ext && { ext: e.ext }),
        duration: e.duration ?? durations[file] ?? null,
        live_status: e.liveStatus ?? 'not_live',
        ...(e.match && { __match: e.match }),
      };
    });
    save();
  };
  setEntries(options.entries ?? []);

  // The search half of the wrapper: Node, reading the state file on every run.
  const searchScript = path.join(binDir, 'search.cjs');
  fs.writeFileSync(
    searchScript,
    `'use strict';
const fs = require('node:fs');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(callsFile)}, args.map((a) => a + '\\x1f').join('') + '\\n');
const state = JSON.parse(fs.readFileSync(${JSON.stringify(stateFile)}, 'utf8'));
const arg = args.find((a) => /^ytsearch(\\d*|all):/.test(a));
const m = /^ytsearch(\\d*|all):(.*)$/s.exec(arg);
const n = m[1] === 'all' ? Infinity : Number(m[1] || 1);
const query = m[2].toLowerCase();
setTimeout(() => {
  if (state.searchFail) {
    process.stderr.write('ERROR: ' + state.searchFail.message + '\\n');
    process.exit(state.searchFail.exitCode);
  }
  const hits = state.entries.filter((e) => !e.__match || query.includes(String(e.__match).toLowerCase())).slice(0, n);
  for (const e of hits) {
    const { __match, ...entry } = e;
    process.stdout.write(JSON.stringify(entry) + '\\n');
  }
}, state.searchDelayMs);
`,
  );
  const bin = path.join(binDir, 'yt-dlp');
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  fs.writeFileSync(
    bin,
    `#!/bin/sh
# Tonearm test wrapper: ytsearch goes to the fake, everything else to the real yt-dlp.
for a in "$@"; do
  case "$a" in
    ytsearch*:*) exec ${q(process.execPath)} ${q(searchScript)} "$@" ;;
  esac
done
{ for a in "$@"; do printf '%s\\037' "$a"; done; printf '\\n'; } >> ${q(callsFile)}
exec ${q(realBinary)} "$@"
`,
  );
  fs.chmodSync(bin, 0o755);

  return {
    binDir,
    bin,
    url: base,
    realBinary,
    durations,
    throttle,
    requests,
    setEntries,
    mediaUrl,
    failSearch(message = 'Unable to download API page: HTTP Error 429: Too Many Requests', exitCode = 1) {
      state.searchFail = { exitCode, message };
      save();
    },
    delaySearch(ms) {
      state.searchDelayMs = ms;
      save();
    },
    clearFailures() {
      state.searchFail = null;
      state.searchDelayMs = 0;
      save();
    },
    addFile(name, content, durationSeconds) {
      fs.writeFileSync(path.join(mediaDir, path.basename(name)), content);
      durations[path.basename(name)] = durationSeconds;
    },
    calls() {
      try {
        return fs
          .readFileSync(callsFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split('\x1f').slice(0, -1));
      } catch {
        return [];
      }
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => {
          fs.rmSync(root, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}
