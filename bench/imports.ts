/**
 * Playlist import (issue 15): preview of a BENCH_IMPORT_TRACKS (default 10,000) track Spotify
 * playlist, the Spotify fake answering each page of 100 after 50 ms. A third of the tracks are in
 * the library, half are known to the MusicBrainz fake (by ISRC, or by name for every tenth), the
 * rest are unknown. Reports the preview's time, MusicBrainz lookups and peak memory (heap and RSS
 * above the idle server), then the import's answer time and how long its job takes to match.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sortName } from '../server/db/libraryText.js';
import type { FakeArtist } from '../test/fakes/musicbrainz/index.js';
import { startMusicBrainzFake } from '../test/fakes/musicbrainz/index.js';
import { startSpotifyFake, type SpotifyUserTrack } from '../test/fakes/spotify/index.js';
import { startTestServer } from '../test/helpers/server.js';

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

export async function runImportsBench(tracks = Number(process.env.BENCH_IMPORT_TRACKS ?? 10_000)): Promise<Record<string, number>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-bench-imports-'));
  const playlist: SpotifyUserTrack[] = [];
  const mbTracks: FakeArtist['releaseGroups'][number]['releases'][number]['tracks'] = [];
  const owned: { title: string; artist: string }[] = [];
  for (let i = 0; i < tracks; i++) {
    const artist = `Bench Artist ${i % 500}`;
    const title = `Song ${i}`;
    const kind = i % 6; // 0,1: owned; 2,3,4: on MusicBrainz; 5: unknown
    const isrc = `QZBNC${String(i).padStart(7, '0')}`;
    playlist.push({ name: title, artists: [artist], album: `Album ${i % 900}`, isrc: kind === 4 ? undefined : isrc, durationMs: 200_000 });
    if (kind < 2) owned.push({ title, artist });
    else if (kind < 5) mbTracks.push({ id: uuid(1_000_000 + i), recordingId: uuid(2_000_000 + i), title, lengthMs: 200_000, ...(kind !== 4 && { isrc }), artists: [{ id: uuid(3_000_000 + (i % 500)), name: artist }] });
  }
  const catalogue: FakeArtist[] = [{ id: uuid(1), name: 'Various', releaseGroups: [{ id: uuid(2), title: 'Everything', primaryType: 'Album', releases: [{ id: uuid(3), title: 'Everything', tracks: mbTracks }] }] }];
  const [spotify, mb] = await Promise.all([startSpotifyFake(), startMusicBrainzFake(catalogue)]);
  spotify.users.set('bench', { id: 'bench', displayName: 'Bench', playlists: [{ id: 'bigplaylist', name: 'Ten Thousand', owner: 'bench', tracks: playlist }] });
  const server = await startTestServer({
    dataDir: dir,
    env: {
      TONEARM_SPOTIFY_API_URL: spotify.apiUrl,
      TONEARM_SPOTIFY_ACCOUNTS_URL: spotify.url,
      TONEARM_SPOTIFY_BROKER_URL: spotify.brokerUrl,
      TONEARM_SPOTIFY_BROKER_CLIENT_ID: spotify.brokerClientId,
      TONEARM_MUSICBRAINZ_URL: mb.url,
      TONEARM_UPSTREAM_SPACING_MS: '0',
      TONEARM_LIBRARY_WATCH: '0',
    },
  });
  try {
    const db = server.ctx.db;
    const now = Date.now();
    db.transaction(() => {
      const add = db.prepare(
        'INSERT INTO library_tracks (identity_key, title, sort_name, artist_name, artist_sort_name, created_at, updated_at, available) VALUES (?, ?, ?, ?, ?, ?, ?, 1)',
      );
      owned.forEach((t, i) => add.run(`bench:${i}`, t.title, sortName(t.title), t.artist, sortName(t.artist), now, now));
    })();
    // Connect the admin's Spotify account through the broker, as a browser would.
    spotify.authUser = 'bench';
    const start = (await (await server.api('/api/playlists/import/spotify/oauth/start', { method: 'POST', token: server.admin.token })).json()) as { url: string };
    const toBroker = (await fetch(start.url, { redirect: 'manual' })).headers.get('location')!;
    const back = new URL((await fetch(toBroker, { redirect: 'manual' })).headers.get('location')!).searchParams;
    const done = await server.api('/api/playlists/import/spotify/oauth/complete', {
      method: 'POST',
      token: server.admin.token,
      json: { state: back.get('state'), accessToken: back.get('access_token'), refreshToken: back.get('refresh_token'), expiresIn: Number(back.get('expires_in')) },
    });
    if (done.status !== 200) throw new Error(`Spotify connection failed: ${done.status}`);

    spotify.faults.delayMs = 50;
    global.gc?.();
    const base = process.memoryUsage();
    let peakHeap = base.heapUsed;
    let peakRss = base.rss;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peakHeap = Math.max(peakHeap, m.heapUsed);
      peakRss = Math.max(peakRss, m.rss);
    }, 10);
    const mbBefore = mb.requests.length;
    const t0 = performance.now();
    const res = await server.api('/api/playlists/import/spotify/preview', { method: 'POST', token: server.admin.token, json: { playlistId: 'bigplaylist' } });
    const preview = (await res.json()) as { total: number; counts: Record<string, number> };
    const previewMs = performance.now() - t0;
    clearInterval(sampler);
    if (res.status !== 200) throw new Error(`preview answered ${res.status}`);
    const lookups = mb.requests.length - mbBefore;
    const mib = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10;
    console.log(
      `\nPlaylist import preview: ${preview.total} Spotify tracks (fake: 50 ms per page of 100) in ${Math.round(previewMs)} ms, ` +
        `${lookups} MusicBrainz lookups, peak heap +${mib(peakHeap - base.heapUsed)} MiB, peak RSS +${mib(peakRss - base.rss)} MiB (load ${os.loadavg()[0]!.toFixed(1)})`,
    );

    const t1 = performance.now();
    const imported = await server.api('/api/playlists/import/spotify', { method: 'POST', token: server.admin.token, json: { playlistId: 'bigplaylist' } });
    const importMs = performance.now() - t1;
    const body = (await imported.json()) as { imports: { importId: string }[] };
    const importId = Number(body.imports[0]!.importId);
    for (;;) {
      const pending = db.prepare("SELECT COUNT(*) FROM playlist_import_items WHERE import_id = ? AND state = 'pending'").pluck().get(importId) as number;
      if (pending === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const matchedMs = performance.now() - t1;

    const result = {
      tracks: preview.total,
      previewMs: Math.round(previewMs),
      owned: preview.counts.owned!,
      download: preview.counts.download!,
      unmatched: preview.counts.unmatched!,
      unchecked: preview.counts.unchecked!,
      musicbrainzLookups: lookups,
      peakHeapAboveIdleMb: mib(peakHeap - base.heapUsed),
      peakRssAboveIdleMb: mib(peakRss - base.rss),
      importAnswerMs: Math.round(importMs),
      importMatchedMs: Math.round(matchedMs),
      loadAverage1m: Math.round(os.loadavg()[0]! * 100) / 100,
    };
    console.log(`\nPlaylist import: preview of ${result.tracks} Spotify tracks (fake: 50 ms per page of 100)`);
    for (const [k, v] of Object.entries(result)) console.log(`  ${k.padEnd(24)} ${v}`);
    return result;
  } finally {
    await server.stop();
    await Promise.all([spotify.close(), mb.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runImportsBench();
