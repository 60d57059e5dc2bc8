/**
 * Playback destinations (issue 15): publishing a 500-track static playlist (BENCH_PLAYBACK_TRACKS)
 * to the Navidrome fake, to a real supysonic (when installed) and to the Plex Media Server fake, all
 * over the same music folder Tonearm scanned: the first publish (matching every track, creating the
 * playlist in calls of 50 songs; for Plex, reading the section's tracks into the ratingKey map and
 * creating the playlist in URIs of 200 items) and a re-publish after changes (cached matches, one
 * track moved to the end, one removed, one added), each timed from the change to the recorded
 * publication. Run alone with `node --import tsx bench/playback.ts`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startNavidromeFake } from '../test/fakes/navidrome/index.js';
import { connectPlex, plexEnv, startPlexFakes } from '../test/plex/helpers.js';
import { startTestServer, type TestServer } from '../test/helpers/server.js';
import { waitForScans } from '../test/rest/harness.js';
import { configureNavidrome, makeLibrary, publications, startSupysonic, staticPlaylists, supysonicMissing, trackIdsByTitle } from '../test/playback/helpers.js';

async function timed(server: TestServer, destination: string, listId: number, seq: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const row = publications(server, destination).find((r) => r.playlist_id === String(listId));
    if (row && row.done_seq >= seq && row.remote_id) return Math.round(performance.now() - started);
    if (row?.last_error) throw new Error(`publish failed: ${row.last_error}`);
    if (performance.now() - started > 300_000) throw new Error('publish did not finish in 5 minutes');
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function saveSettings(server: TestServer, json: unknown): Promise<void> {
  const res = await server.api('/api/settings', { method: 'POST', token: server.admin.token, json });
  if (res.status !== 200) throw new Error(`settings: ${res.status} ${await res.text()}`);
}

export interface PlaybackBenchResult {
  tracks: number;
  results: Array<{ destination: string; firstPublishMs: number; republishMs: number; matched: number }>;
}

export async function runPlaybackBench(count = Number(process.env.BENCH_PLAYBACK_TRACKS ?? 500)): Promise<PlaybackBenchResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-bench-playback-'));
  const music = path.join(dir, 'music');
  // One file more than the playlist holds: the track the update adds.
  const files = makeLibrary(music, count + 1, 12);
  const plex = await startPlexFakes();
  const server = await startTestServer({ musicDirs: [music], env: { ...plexEnv(plex), TONEARM_LIBRARY_WATCH: '0' } });
  const fake = await startNavidromeFake({ username: 'tonearm', password: 'bench pass 1' });
  fake.addSongs(files.map((f) => ({ title: f.title, artist: f.artist, album: f.album, path: f.rel, duration: 1, track: f.track })));
  const missing = supysonicMissing();
  const supy = missing ? null : await startSupysonic(path.join(dir, 'supysonic'), music);
  const out: PlaybackBenchResult = { tracks: count, results: [] };
  try {
    await waitForScans(server, 300_000);
    const all = [...trackIdsByTitle(server).values()].sort((a, b) => a - b);
    const ids = all.slice(0, count);
    const adminId = server.ctx.users.findByUsername('admin')!.id;
    const lists = staticPlaylists(server);
    // The same change for every destination: the first track moved to the end, the second removed, one added.
    const changed = [...ids.slice(2), ids[0]!, all[count]!];
    const measure = async (destination: string, name: string) => {
      const listId = lists.create(adminId, `Bench ${name}`, ids);
      const firstPublishMs = await timed(server, destination, listId, 1);
      lists.update(adminId, listId, { trackIds: changed });
      const republishMs = await timed(server, destination, listId, 2);
      const matched = publications(server, destination).find((r) => r.playlist_id === String(listId))!.matched_count;
      out.results.push({ destination: name, firstPublishMs, republishMs, matched });
      lists.delete(adminId, listId);
      for (let i = 0; i < 2000 && publications(server, destination).some((r) => r.playlist_id === String(listId)); i++) await new Promise((r) => setTimeout(r, 10));
    };
    const targets: Array<{ name: string; url: string; username: string; password: string }> = [
      { name: 'Navidrome fake', url: fake.url, username: 'tonearm', password: 'bench pass 1' },
      ...(supy ? [{ name: 'supysonic', url: supy.url, username: supy.username, password: supy.password }] : []),
    ];
    for (const t of targets) {
      await configureNavidrome(server, t.url, t.username, t.password);
      await measure('navidrome', t.name);
    }
    // Plex: Subsonic publishing off, the Plex fake holds every file as a track of section 3 (under its own path).
    await saveSettings(server, { playback: { navidrome: { enabled: false } } });
    plex.pms.sections = [{ key: '3', title: 'Music', type: 'artist', locations: ['/plexmedia/music'] }];
    plex.pms.tracks = files.map((f, i) => ({ ratingKey: String(10_000 + i), sectionKey: '3', title: f.title, artist: f.artist, album: f.album, file: `/plexmedia/music/${f.rel}` }));
    await connectPlex(server, plex);
    const listed = await server.api('/api/settings/plex/resources', { method: 'POST', token: server.admin.token, json: {} });
    if (listed.status !== 200) throw new Error(`Plex resources: ${listed.status}`);
    await saveSettings(server, {
      integrations: { plex: { url: plex.pms.url, machineIdentifier: plex.pms.machineIdentifier, serverName: 'Den', librarySectionId: '3', pathMappings: [{ from: '/plexmedia/music', to: music }] } },
      playback: { plex: { enabled: true } },
    });
    await measure('plex', 'Plex fake');
    console.log(`\nPlayback destinations: publishing a ${count}-track playlist (load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})`);
    for (const r of out.results) {
      console.log(`  ${r.destination.padEnd(16)} first publish ${String(r.firstPublishMs).padStart(6)} ms   re-publish after changes ${String(r.republishMs).padStart(6)} ms   matched ${r.matched}/${count}`);
    }
    if (missing) console.log(`  supysonic skipped: ${missing}`);
    return out;
  } finally {
    await server.stop();
    await fake.close();
    await plex.close();
    await supy?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runPlaybackBench();
}
