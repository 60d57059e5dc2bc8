import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadsRoot, isInside } from '../../server/domain/downloads/layout.js';
import { startLastFmFake, type LastFmFake } from '../fakes/lastfm/index.js';
import { startYtdlpFake, type YtdlpFake } from '../fakes/ytdlp/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { flowWorld, json, runFlow, runTracks, waitFor } from './helpers.js';

/**
 * A flow run end to end through the real pipeline and the yt-dlp fake: the planned tracks download
 * and are filed under the downloads root, one that no source has fails and its reserve track takes
 * its place and downloads too, the run ends `done`, and the downloaded tracks become the flow's
 * playlist (library tracks after the scan) and can be kept as a static playlist.
 */

let server: TestServer;
let lastfm: LastFmFake;
let ytdlp: YtdlpFake;

beforeAll(async () => {
  [lastfm, ytdlp] = await Promise.all([startLastFmFake(flowWorld()), startYtdlpFake()]);
  server = await startTestServer({ ytdlp: ytdlp.bin, env: { TONEARM_LASTFM_URL: lastfm.url, TONEARM_UPSTREAM_SPACING_MS: '0', ALLOW_PRIVATE_TARGETS: '127.0.0.1' } });
  const res = await server.api('/api/settings', {
    method: 'POST',
    token: server.admin.token,
    json: { integrations: { lastfm: { apiKey: lastfm.apiKey }, ytdlp: { enabled: true } }, downloads: { worker: { running: false } } },
  });
  expect(res.status).toBe(200);
  server.ctx.db
    .prepare('INSERT INTO library_artists (identity_key, name, sort_name, created_at, updated_at, track_count, album_count) VALUES (?, ?, ?, 0, 0, 10, 1)')
    .run('name:lib a', 'Lib A', 'lib a');
  await server.ctx.discovery.refreshUser(1);
}, 60_000);

afterAll(async () => {
  await Promise.all([server?.stop(), lastfm?.close(), ytdlp?.stop()]);
});

describe('a flow run through the download pipeline', () => {
  it('downloads its tracks, replaces a failure with a reserve track, and becomes a playlist', async () => {
    const { flow } = await json(
      await server.api('/api/playlists/flows', { method: 'POST', token: server.admin.token, json: { name: 'Real', size: 3, mix: { discover: 100 }, scheduleDays: [5], scheduleTime: '00:00' } }),
    );
    const run = await runFlow(server, server.admin.token, flow.id);
    const [missing, ...found] = runTracks(server, run.id);
    const reserve = runTracks(server, run.id, 1)[0]!;
    // yt-dlp finds every planned track but the first, and the first reserve track.
    ytdlp.setEntries(
      [...found, reserve].map((t) => ({ title: `${t.artistName} - ${t.trackName}`, uploader: `${t.artistName}VEVO`, file: 'tone.mp3', match: t.trackName.toLowerCase() })),
    );
    expect((await server.api('/api/playlists/worker/start', { method: 'POST', token: server.admin.token })).status).toBe(200);

    const svc = server.ctx.downloads;
    await waitFor(() => svc.get(missing!.jobId!)!.status === 'failed', 'the track no source has to fail', 60_000);
    const replaced = await waitFor(() => runTracks(server, run.id).find((t) => t.position === missing!.position && t.id === reserve.id), 'the reserve track to take its place');
    expect(replaced.jobId).not.toBe(missing!.jobId);
    const current = runTracks(server, run.id);
    for (const t of current) {
      const job = await waitFor(() => {
        const j = svc.get(t.jobId!)!;
        return j.status === 'done' || j.status === 'failed' ? j : undefined;
      }, `${t.trackName} to download`, 60_000);
      expect(job).toMatchObject({ status: 'done', playlistType: 'flow', playlistId: flow.id });
      expect(isInside(downloadsRoot(server.ctx), job.finalPath!)).toBe(true);
      expect(fs.existsSync(job.finalPath!)).toBe(true);
    }
    await waitFor(() => (server.ctx.db.prepare('SELECT status FROM flow_runs WHERE id = ?').get(run.id) as { status: string }).status === 'done', 'the run to finish');

    // Filed files are scanned into the library: the flow's playlist is those three library tracks.
    const ref = () => server.ctx.playlists.find(flow.id)!;
    await waitFor(() => server.ctx.playlists.trackIds(ref()).length === 3, 'the flow tracks in the library', 30_000);
    expect(ref()).toMatchObject({ kind: 'flow', songCount: 3, ownerUserId: 1 });
    const kept = await json(await server.api(`/api/playlists/flows/${flow.id}/static-playlist`, { method: 'POST', token: server.admin.token, json: {} }));
    expect(kept).toMatchObject({ success: true, trackCount: 3, name: expect.stringMatching(/^Real \d{4}-\d{2}-\d{2}$/) });
    const shown = await json(await server.api(`/api/playlists/flows/${flow.id}`, { token: server.admin.token }));
    expect(shown.flow).toMatchObject({ trackCount: 3, stats: { total: 4, done: 3, failed: 1 }, currentRun: { status: 'done', planned: 3 } });
  }, 120_000);
});
