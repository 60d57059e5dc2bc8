import { sortName } from '../../server/db/libraryText.js';
import { expect } from 'vitest';
import { startLastFmFake, type FakeLastFmArtist, type LastFmFake } from '../fakes/lastfm/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitFor<T>(check: () => T | undefined | false | null | Promise<T | undefined | false | null>, what: string, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false && v !== null) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

export async function json<T = any>(res: Response, status = 200): Promise<T> {
  const body = await res.text();
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${body}`);
  return JSON.parse(body) as T;
}

const songs = (artist: string, n: number) => Array.from({ length: n }, (_, i) => ({ name: `${artist} Song ${i + 1}`, playcount: 1000 - i * 10 }));
const mbidOf = (i: number, kind: number) => `00000000-0000-4000-8000-${String(kind).padStart(4, '0')}${String(i).padStart(8, '0')}`;

/**
 * A Last.fm world for flows: eight library artists (Lib A..H), 24 recommendations reached through
 * Lib A and Lib B (Rec 1..24, with MBIDs), a chart of ten (Chart 1..10, the most listeners), eight
 * shoegaze artists (Tag 1..8), and "Heard One", an artist of the listening history outside the
 * library whose similar artists are the shoegaze ones. Every artist has top tracks "<name> Song N".
 */
export function flowWorld(): FakeLastFmArtist[] {
  const libs = 'ABCDEFGH'.split('').map((c) => `Lib ${c}`);
  const recs = Array.from({ length: 24 }, (_, i) => i + 1);
  return [
    ...libs.map((name, i) => ({
      name,
      listeners: 50,
      tags: ['dream pop'],
      topTracks: songs(name, 8),
      similar: i === 0 ? recs.slice(0, 12).map((r) => ({ name: `Rec ${r}`, mbid: mbidOf(r, 1), match: 1 - r / 100 })) : i === 1 ? recs.slice(12).map((r) => ({ name: `Rec ${r}`, mbid: mbidOf(r, 1), match: 1 - r / 100 })) : [],
    })),
    ...recs.map((r) => ({ name: `Rec ${r}`, mbid: mbidOf(r, 1), listeners: 100 + r, tags: ['indie'], topTracks: songs(`Rec ${r}`, 6) })),
    ...Array.from({ length: 10 }, (_, i) => ({ name: `Chart ${i + 1}`, mbid: mbidOf(i + 1, 2), listeners: 100_000 + i, tags: ['pop'], topTracks: songs(`Chart ${i + 1}`, 6) })),
    ...Array.from({ length: 8 }, (_, i) => ({ name: `Tag ${i + 1}`, mbid: mbidOf(i + 1, 3), listeners: 20 + i, tags: ['shoegaze'], topTracks: songs(`Tag ${i + 1}`, 6) })),
    {
      name: 'Heard One',
      listeners: 10,
      tags: ['shoegaze'],
      topTracks: songs('Heard One', 6),
      similar: Array.from({ length: 8 }, (_, i) => ({ name: `Tag ${i + 1}`, mbid: mbidOf(i + 1, 3), match: 0.9 - i / 20 })),
    },
  ];
}

/** Library artists and a few owned tracks straight into the canonical tables. */
export function addLibrary(server: TestServer, artists: string[], tracks: { artist: string; title: string }[]): void {
  const db = server.ctx.db;
  const artist = db.prepare(
    'INSERT INTO library_artists (identity_key, mbid, name, sort_name, created_at, updated_at, track_count, album_count) VALUES (?, NULL, ?, ?, 0, 0, 10, 1)',
  );
  const track = db.prepare(
    `INSERT INTO library_tracks (identity_key, title, sort_name, artist_name, artist_sort_name, created_at, updated_at, available) VALUES (?, ?, ?, ?, ?, 0, 0, 1)`,
  );
  db.transaction(() => {
    for (const a of artists) artist.run(`name:${a.toLowerCase()}`, a, sortName(a));
    for (const t of tracks) track.run(`t:${t.artist}:${t.title}`, t.title, sortName(t.title), t.artist, sortName(t.artist));
  })();
}

/** Runs a flow through the API and waits until its run is planned; returns the run row. */
export async function runFlow(server: TestServer, token: string, flowId: string) {
  const res = await json<{ operationId: string; queued: boolean }>(await server.api(`/api/playlists/start/${flowId}`, { method: 'POST', token }));
  return waitFor(
    () => server.ctx.db.prepare(`SELECT * FROM flow_runs WHERE queue_job_id = ? AND status != 'planning'`).get(Number(res.operationId)) as { id: number; status: string; error: string | null } | undefined,
    `run of ${flowId}`,
  );
}

/** The run's playlist tracks (not the reserve) per source. */
export function sourceCounts(server: TestServer, runId: number): Record<string, number> {
  const rows = server.ctx.db.prepare(`SELECT source, COUNT(*) AS n FROM flow_tracks WHERE run_id = ? AND reserve = 0 GROUP BY source`).all(runId) as { source: string; n: number }[];
  return Object.fromEntries(rows.map((r) => [r.source, r.n]));
}

export function runTracks(server: TestServer, runId: number, reserve = 0) {
  return server.ctx.db
    .prepare(`SELECT id, source, artist_name AS artistName, track_name AS trackName, artist_mbid AS artistMbid, job_id AS jobId, state, position FROM flow_tracks WHERE run_id = ? AND reserve = ? ORDER BY position`)
    .all(runId, reserve) as { id: number; source: string; artistName: string; trackName: string; artistMbid: string | null; jobId: number | null; state: string; position: number }[];
}

/** A server whose discovery reads the Last.fm fake of flowWorld(), with the download worker stopped. */
export async function startFlowServer(): Promise<{ server: TestServer; lastfm: LastFmFake }> {
  const lastfm = await startLastFmFake(flowWorld());
  const server = await startTestServer({ env: { TONEARM_LASTFM_URL: lastfm.url, TONEARM_UPSTREAM_SPACING_MS: '0', ALLOW_PRIVATE_TARGETS: '127.0.0.1' } });
  const res = await server.api('/api/settings', {
    method: 'POST',
    token: server.admin.token,
    json: { integrations: { lastfm: { apiKey: lastfm.apiKey } }, downloads: { worker: { running: false } } },
  });
  expect(res.status).toBe(200);
  return { server, lastfm };
}
