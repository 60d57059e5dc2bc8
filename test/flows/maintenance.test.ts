import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadsRoot } from '../../server/domain/downloads/layout.js';
import type { LastFmFake } from '../fakes/lastfm/index.js';
import type { TestServer } from '../helpers/server.js';
import { makeUser } from '../downloads/helpers.js';
import { RestClient } from '../rest/harness.js';
import { addLibrary, json, runFlow, runTracks, startFlowServer } from './helpers.js';

/**
 * Flow maintenance (api.md 4.10): `POST /api/playlists/reset` empties selected flows with the
 * rotation's removal rule, and `POST /api/playlists/playlist/:playlistType/create` writes the
 * Navidrome smart-playlist and M3U8 files of flows into the downloads root. The worker is stopped;
 * the tests move jobs like the pipeline would.
 */

let server: TestServer;
let lastfm: LastFmFake;
let user: { id: number; token: string };
const token = () => server.admin.token;
const post = (p: string, body?: unknown, t = token()) => server.api(p, { method: 'POST', token: t, ...(body === undefined ? {} : { json: body }) });

beforeAll(async () => {
  ({ server, lastfm } = await startFlowServer());
  addLibrary(server, ['Lib A', 'Lib B'], []);
  await server.ctx.discovery.refreshUser(1);
  user = await makeUser(server, 'maintuser', { accessFlow: true });
}, 60_000);

afterAll(async () => {
  await Promise.all([server?.stop(), lastfm?.close()]);
});

const newFlow = async (name: string, size = 3) =>
  (await json(await post('/api/playlists/flows', { name, size, mix: { discover: 100 }, scheduleDays: [1], scheduleTime: '03:00' }))).flow as { id: string; name: string };

/** Marks the run's tracks done with real files under the downloads root; returns the paths. */
function finish(runId: number, folder: string): string[] {
  const root = downloadsRoot(server.ctx);
  const svc = server.ctx.downloads;
  return runTracks(server, runId).map((t, i) => {
    const p = path.join(root, folder, `${String(i + 1).padStart(2, '0')} ${t.trackName}.mp3`);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, t.trackName);
    svc.transition(t.jobId!, { status: 'done', finalPath: p, progress: 100 });
    return p;
  });
}

describe('POST /api/playlists/reset', () => {
  it('empties the selected flows and removes only the files nothing else uses', async () => {
    const flow = await newFlow('To Reset');
    const keep = await newFlow('Untouched', 2);
    const run = await runFlow(server, token(), flow.id);
    const other = await runFlow(server, token(), keep.id);
    const [fa, fb, fc] = finish(run.id, 'Reset Artist') as [string, string, string];
    const db = server.ctx.db;
    // a: a library track in a static playlist; b: also another job's file; c: only this flow's.
    db.prepare(`INSERT INTO library_tracks (id, identity_key, title, sort_name, artist_name, artist_sort_name, created_at, updated_at, available) VALUES (9101, 'reset-a', 'a', 'a', 'x', 'x', 0, 0, 1)`).run();
    db.prepare(`INSERT INTO library_media_files (track_id, source, path, created_at, updated_at) VALUES (9101, 'aurral', ?, 0, 0)`).run(fa);
    db.prepare(`INSERT INTO static_playlists (user_id, name, created_at, updated_at) VALUES (1, 'Holds a', 0, 0)`).run();
    const sp = (db.prepare('SELECT id FROM static_playlists WHERE name = ?').get('Holds a') as { id: number }).id;
    db.prepare('INSERT INTO static_playlist_tracks (playlist_id, track_id, position) VALUES (?, 9101, 0)').run(sp);
    const svc = server.ctx.downloads;
    const shared = svc.create({ userId: 1, playlistType: 'shared', playlistId: 'some-shared', artistName: 'x', trackName: 'b' });
    svc.transition(shared.id, { status: 'done', finalPath: fb });

    // Bad input is 400, an id the caller cannot change is 404, and nothing is reset then.
    for (const body of [undefined, {}, { flowIds: [] }, { flowIds: 'x' }, { flowIds: [1] }, { flowIds: [''] }]) expect((await post('/api/playlists/reset', body)).status).toBe(400);
    expect((await post('/api/playlists/reset', { flowIds: [flow.id] }, user.token)).status).toBe(404);
    expect((await post('/api/playlists/reset', { flowIds: [flow.id, 'no-such-flow'] })).status).toBe(404);
    expect(runTracks(server, run.id)).toHaveLength(3);

    const res = await json(await post('/api/playlists/reset', { flowIds: [flow.id] }));
    expect(res).toEqual({ success: true, reset: [flow.id], removedJobs: 3, removedFiles: 1 });
    expect(fs.existsSync(fa)).toBe(true);
    expect(fs.existsSync(fb)).toBe(true);
    expect(fs.existsSync(fc)).toBe(false);
    expect(db.prepare(`SELECT COUNT(*) AS n FROM download_jobs WHERE playlist_type = 'flow' AND playlist_id = ?`).get(flow.id)).toEqual({ n: 0 });
    expect(db.prepare('SELECT COUNT(*) AS n FROM flow_tracks WHERE flow_id = ?').get(flow.id)).toEqual({ n: 0 });
    expect(db.prepare('SELECT COUNT(*) AS n FROM flow_runs WHERE flow_id = ?').get(flow.id)).toEqual({ n: 0 });
    const after = (await json(await server.api(`/api/playlists/flows/${flow.id}`, { token: token() }))).flow;
    expect(after).toMatchObject({ id: flow.id, name: 'To Reset', trackCount: 0, currentRun: null, stats: { total: 0 } });
    expect(after.nextRunAt).not.toBeNull();
    // The other flow is untouched; the reference's spelling of the body works too.
    expect(runTracks(server, other.id)).toHaveLength(2);
    expect(await json(await post('/api/playlists/reset', { playlistTypes: [keep.id] }))).toMatchObject({ reset: [keep.id], removedJobs: 2 });
  }, 30_000);
});

describe('POST /api/playlists/playlist/:playlistType/create', () => {
  it('writes the .nsp and .m3u8 files of a flow inside the downloads root, idempotently', async () => {
    const flow = await newFlow('Files Flow');
    const run = await runFlow(server, token(), flow.id);
    const paths = finish(run.id, path.join('Files Artist', 'Album'));
    const root = downloadsRoot(server.ctx);

    expect((await post('/api/playlists/playlist/library/create')).status).toBe(400);
    expect((await post('/api/playlists/playlist/no-such-flow/create')).status).toBe(404);
    expect((await post(`/api/playlists/playlist/${flow.id}/create`, undefined, user.token)).status).toBe(404);

    const first = await json(await post(`/api/playlists/playlist/${flow.id}/create`));
    expect(first.files).toHaveLength(2);
    expect(first.files.every((f: { written: boolean }) => f.written)).toBe(true);
    const m3u = first.files.find((f: { path: string }) => f.path.endsWith('.m3u8')).path as string;
    const nspPath = first.files.find((f: { path: string }) => f.path.endsWith('.nsp')).path as string;
    expect(m3u.startsWith('flow-playlists/')).toBe(true);
    expect(m3u).toContain('admin - Files Flow (');
    const text = fs.readFileSync(path.join(root, m3u), 'utf8');
    expect(text.split('\n')[0]).toBe('#EXTM3U');
    expect(text).toContain('#PLAYLIST:Files Flow');
    const entries = text.split('\n').filter((l) => l && !l.startsWith('#'));
    // Relative to the playlist folder, resolving to the downloaded files, in playlist order.
    expect(entries.map((e) => path.resolve(root, 'flow-playlists', e))).toEqual(paths);
    const smart = JSON.parse(fs.readFileSync(path.join(root, nspPath), 'utf8'));
    expect(smart.name).toBe('Files Flow');
    expect(smart.any.map((r: { is: { filepath: string } }) => r.is.filepath)).toEqual(paths.map((p) => path.relative(root, p).split(path.sep).join('/')));

    // Again: nothing changes, nothing is rewritten.
    const mtime = fs.statSync(path.join(root, m3u)).mtimeMs;
    const second = await json(await post(`/api/playlists/playlist/${flow.id}/create`));
    expect(second.files.map((f: { written: boolean }) => f.written)).toEqual([false, false]);
    expect(fs.statSync(path.join(root, m3u)).mtimeMs).toBe(mtime);
    // No temporary files are left behind.
    expect(fs.readdirSync(path.join(root, 'flow-playlists')).some((f) => f.endsWith('.tmp'))).toBe(false);

    // Renamed: the files follow the name, the old ones go. "flow" writes every flow the caller sees.
    await json(await server.api(`/api/playlists/flows/${flow.id}`, { method: 'PUT', token: token(), json: { name: 'Renamed Flow' } }));
    const all = await json(await post('/api/playlists/playlist/flow/create'));
    expect(all.files.some((f: { path: string }) => f.path.includes('admin - Renamed Flow ('))).toBe(true);
    expect(fs.existsSync(path.join(root, m3u))).toBe(false);
    expect(new Set(all.files.map((f: { playlistId: string }) => f.playlistId)).size).toBeGreaterThanOrEqual(1);
    // A user sees only their own flows: none yet, so nothing is written for them.
    expect((await json(await post('/api/playlists/playlist/flow/create', undefined, user.token))).files).toEqual([]);
  }, 30_000);
});

describe('recordHistory', () => {
  it("keeps plays of a flow's downloaded tracks out of the history while off, records them when on", async () => {
    const flow = await newFlow('History Flow', 2);
    const run = await runFlow(server, token(), flow.id);
    const [file] = finish(run.id, 'History Artist') as [string];
    const db = server.ctx.db;
    db.prepare(`INSERT INTO library_tracks (id, identity_key, title, sort_name, artist_name, artist_sort_name, created_at, updated_at, available) VALUES (9201, 'hist-a', 'h', 'h', 'x', 'x', 0, 0, 1)`).run();
    db.prepare(`INSERT INTO library_media_files (track_id, source, path, created_at, updated_at) VALUES (9201, 'aurral', ?, 0, 0)`).run(file);
    const rest = new RestClient(server, { username: 'admin', password: 'correct horse battery' });
    const events = () => (db.prepare('SELECT COUNT(*) AS n FROM play_events WHERE track_id = 9201').get() as { n: number }).n;
    const song = (await rest.ok('search3', { query: 'h', artistCount: 0, albumCount: 0 }))['searchResult3']?.song?.[0]?.id ?? (db.prepare('SELECT subsonic_key FROM library_tracks WHERE id = 9201').pluck().get() as string);
    await rest.ok('scrobble', { id: song });
    expect(events()).toBe(0);
    await json(await server.api(`/api/playlists/flows/${flow.id}`, { method: 'PUT', token: token(), json: { recordHistory: true } }));
    await rest.ok('scrobble', { id: song });
    expect(events()).toBe(1);
  }, 30_000);

  it('keeps a play reported by the web player (POST /api/play-events) out of the history and the scrobbles too', async () => {
    const flow = await newFlow('Web History Flow', 2);
    const run = await runFlow(server, token(), flow.id);
    const [file] = finish(run.id, 'Web History Artist') as [string];
    const db = server.ctx.db;
    db.prepare(`INSERT INTO library_tracks (id, identity_key, title, sort_name, artist_name, artist_sort_name, created_at, updated_at, available) VALUES (9202, 'hist-web', 'w', 'w', 'x', 'x', 0, 0, 1)`).run();
    db.prepare(`INSERT INTO library_media_files (track_id, source, path, created_at, updated_at) VALUES (9202, 'aurral', ?, 0, 0)`).run(file);
    // A linked scrobbling service, so a forwarded scrobble leaves an outbox row (its secret cannot be used: never delivered).
    db.prepare(`INSERT OR REPLACE INTO scrobble_links (user_id, service, username, secret_enc, base_url, linked_at) VALUES (1, 'koito', 'admin', 'not-a-secret', 'http://127.0.0.1:9', 0)`).run();
    const events = () => (db.prepare('SELECT COUNT(*) AS n FROM play_events WHERE track_id = 9202').get() as { n: number }).n;
    const scrobbles = () => (db.prepare(`SELECT COUNT(*) AS n FROM scrobble_deliveries WHERE kind = 'scrobble' AND play LIKE '%"title":"w"%'`).get() as { n: number }).n;
    const play = () => post('/api/play-events', { trackId: 9202, source: 'web' });

    const off = await play();
    expect(off.status).toBe(202);
    expect(await off.json()).toEqual({ success: true, recorded: false });
    expect(events()).toBe(0);
    expect(scrobbles()).toBe(0);

    await json(await server.api(`/api/playlists/flows/${flow.id}`, { method: 'PUT', token: token(), json: { recordHistory: true } }));
    const on = await play();
    expect(on.status).toBe(201);
    expect(await on.json()).toMatchObject({ success: true });
    expect(events()).toBe(1);
    expect(scrobbles()).toBe(1);
  }, 30_000);
});
