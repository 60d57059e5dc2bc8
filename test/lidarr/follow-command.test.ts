import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIDARR_COMMAND_QUEUE } from '../../server/domain/lidarr/library.js';
import { waitFor } from '../downloads/helpers.js';
import { setup, type Setup } from './helpers.js';

/**
 * Refreshing an artist: a durable job on the server's clock follows Lidarr's command (after 100 ms,
 * then at doubling intervals) and re-indexes the artist once the command has ended, or after 5 minutes.
 */
let s: Setup;
beforeAll(async () => {
  // Commands stay queued, then started, for a while (real time), so the first look finds them running.
  s = await setup({ commandStartMs: 400, commandRunMs: 400 });
  s.fake.seedLibrary({ artists: 2, albumsPerArtist: 1, tracksPerAlbum: 1 });
}, 30_000);
afterAll(() => s.close());

const followJobs = () =>
  s.server.ctx.db.prepare('SELECT id, status, attempts, run_at AS runAt FROM jobs WHERE queue = ? ORDER BY id').all(LIDARR_COMMAND_QUEUE) as {
    id: number;
    status: string;
    attempts: number;
    runAt: number;
  }[];
const reindexRuns = () => s.server.ctx.db.prepare("SELECT id FROM library_scan_runs WHERE source = 'lidarr' AND reason = 'artist refreshed'").all();
const advance = (ms: number) => {
  s.server.clock.advance(ms);
  s.server.ctx.jobs.wake(LIDARR_COMMAND_QUEUE);
};

describe("following a Lidarr command on the server's clock", () => {
  it('asks again while the command runs and re-indexes the artist once it has ended', async () => {
    const mbid = s.fake.state.library.artists.get(1)!.foreignArtistId;
    const res = await s.call('POST', `/api/library/artists/${mbid}/refresh`);
    expect(res.status).toBe(202);
    const [job] = followJobs();
    expect(job).toMatchObject({ status: 'pending', attempts: 0, runAt: s.server.clock.now() + 100 });
    // The clock stands still: nothing is asked and nothing re-indexed, however long we wait.
    await new Promise((r) => setTimeout(r, 300));
    expect(followJobs()[0]!.attempts).toBe(0);

    advance(100);
    // The command is still queued: the job asks again 200 ms later (on the server's clock).
    const retried = await waitFor(() => followJobs().find((j) => j.attempts === 1 && j.status === 'pending'), 5000, 'the first look');
    expect(retried.runAt).toBe(s.server.clock.now() + 200);
    expect(reindexRuns()).toEqual([]);

    await waitFor(() => s.fake.state.activity.commands.at(-1)?.status === 'completed' || null, 5000, 'the command ended in Lidarr');
    advance(200);
    await waitFor(() => followJobs()[0]!.status === 'done' || null, 5000, 'the job done');
    await s.indexed();
    expect(reindexRuns()).toHaveLength(1);
  });

  it('re-indexes after five minutes even when the command never ends', async () => {
    const before = reindexRuns().length;
    const mbid = s.fake.state.library.artists.get(2)!.foreignArtistId;
    expect((await s.call('POST', `/api/library/artists/${mbid}/refresh`)).status).toBe(202);
    const job = followJobs().at(-1)!;
    advance(5 * 60_000);
    await waitFor(() => followJobs().find((j) => j.id === job.id && j.status === 'done'), 5000, 'the job done');
    await s.indexed();
    expect(reindexRuns()).toHaveLength(before + 1);
  });
});
