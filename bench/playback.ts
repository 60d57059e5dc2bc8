/**
 * Playback destinations (issue 15): publishing a 500-track static playlist (BENCH_PLAYBACK_TRACKS)
 * to the Navidrome fake and to a real supysonic (when installed), both over the same music folder
 * Tonearm scanned: the first publish (matching every track, creating the playlist in calls of 50
 * songs) and a re-publish after one change (cached matches, one track moved to the end), each timed
 * from the change to the recorded publication. Run alone with `node --import tsx bench/playback.ts`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startNavidromeFake } from '../test/fakes/navidrome/index.js';
import { startTestServer, type TestServer } from '../test/helpers/server.js';
import { waitForScans } from '../test/rest/harness.js';
import { configureNavidrome, makeLibrary, publications, startSupysonic, staticPlaylists, supysonicMissing, trackIdsByTitle } from '../test/playback/helpers.js';

async function timed(server: TestServer, listId: number, seq: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const row = publications(server).find((r) => r.playlist_id === String(listId));
    if (row && row.done_seq >= seq && row.remote_id) return Math.round(performance.now() - started);
    if (row?.last_error) throw new Error(`publish failed: ${row.last_error}`);
    if (performance.now() - started > 300_000) throw new Error('publish did not finish in 5 minutes');
    await new Promise((r) => setTimeout(r, 5));
  }
}

export interface PlaybackBenchResult {
  tracks: number;
  results: Array<{ destination: string; firstPublishMs: number; republishMs: number; matched: number }>;
}

export async function runPlaybackBench(count = Number(process.env.BENCH_PLAYBACK_TRACKS ?? 500)): Promise<PlaybackBenchResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-bench-playback-'));
  const music = path.join(dir, 'music');
  const files = makeLibrary(music, count, 12);
  const server = await startTestServer({ musicDirs: [music], env: { TONEARM_LIBRARY_WATCH: '0' } });
  const fake = await startNavidromeFake({ username: 'tonearm', password: 'bench pass 1' });
  fake.addSongs(files.map((f) => ({ title: f.title, artist: f.artist, album: f.album, path: f.rel, duration: 1, track: f.track })));
  const missing = supysonicMissing();
  const supy = missing ? null : await startSupysonic(path.join(dir, 'supysonic'), music);
  const out: PlaybackBenchResult = { tracks: count, results: [] };
  try {
    await waitForScans(server, 300_000);
    const ids = [...trackIdsByTitle(server).values()].sort((a, b) => a - b).slice(0, count);
    const adminId = server.ctx.users.findByUsername('admin')!.id;
    const lists = staticPlaylists(server);
    const targets: Array<{ name: string; url: string; username: string; password: string }> = [
      { name: 'Navidrome fake', url: fake.url, username: 'tonearm', password: 'bench pass 1' },
      ...(supy ? [{ name: 'supysonic', url: supy.url, username: supy.username, password: supy.password }] : []),
    ];
    for (const t of targets) {
      await configureNavidrome(server, t.url, t.username, t.password);
      const listId = lists.create(adminId, `Bench ${t.name}`, ids);
      const firstPublishMs = await timed(server, listId, 1);
      lists.update(adminId, listId, { trackIds: [...ids.slice(1), ids[0]!] });
      const republishMs = await timed(server, listId, 2);
      const matched = publications(server).find((r) => r.playlist_id === String(listId))!.matched_count;
      out.results.push({ destination: t.name, firstPublishMs, republishMs, matched });
      lists.delete(adminId, listId);
      for (let i = 0; i < 2000 && publications(server).some((r) => r.playlist_id === String(listId)); i++) await new Promise((r) => setTimeout(r, 10));
    }
    console.log(`\nPlayback destinations: publishing a ${count}-track playlist (load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})`);
    for (const r of out.results) {
      console.log(`  ${r.destination.padEnd(16)} first publish ${String(r.firstPublishMs).padStart(6)} ms   re-publish after one change ${String(r.republishMs).padStart(6)} ms   matched ${r.matched}/${count}`);
    }
    if (missing) console.log(`  supysonic skipped: ${missing}`);
    return out;
  } finally {
    await server.stop();
    await fake.close();
    await supy?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runPlaybackBench();
}
