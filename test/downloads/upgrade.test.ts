import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloads } from '../../server/db/downloads.js';
import { fileJob } from '../../server/domain/downloads/filePhase.js';
import { downloadsRoot, stagingDir } from '../../server/domain/downloads/layout.js';
import { JobLeft } from '../../server/domain/downloads/state.js';
import { locateFfmpeg } from '../../server/domain/subsonic/transcoding.js';
import { makeAudioFile } from '../fixtures/audio.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { setSettings } from './helpers.js';

/**
 * A finished quality upgrade replaces the copy it upgrades: the original job points at the better
 * file and the old file goes (unless something else uses it); a copy that is not better is dropped.
 */

let server: TestServer;
let root: string;
const ffmpeg = locateFfmpeg(undefined);

beforeAll(async () => {
  server = await startTestServer();
  // The worker stays off: these tests drive the file phase themselves.
  await setSettings(server, { downloads: { worker: { running: false } } });
  root = downloadsRoot(server.ctx);
}, 30_000);

afterAll(async () => {
  await server?.stop();
});

/** A done job with a low-quality mp3 in the library, and an upgrade job holding `format` in staging. */
function setUp(trackName: string, format: 'flac' | 'mp3') {
  const db = server.ctx.db;
  const now = server.ctx.clock.now();
  const oldFile = path.join(root, 'Glass Owls', 'Night Lines', `01 ${trackName}.mp3`);
  makeAudioFile(oldFile, 'mp3', { title: trackName, artist: 'Glass Owls', album: 'Night Lines', track: 1 }, { seconds: 2 });
  const original = downloads.insert(db, { userId: 1, artistName: 'Glass Owls', trackName, albumName: 'Night Lines', trackNumber: 1 }, now);
  downloads.update(db, original.id, { status: 'done', finalPath: oldFile, format: 'mp3', bitrate: 64, qualityTier: 'low', completedAt: now }, now);
  const upgrade = downloads.insert(db, { userId: 1, artistName: 'Glass Owls', trackName, albumName: 'Night Lines', trackNumber: 1, upgrade: true }, now);
  const held = path.join(stagingDir(root, upgrade.id), `held.${format}`);
  makeAudioFile(held, format, { title: trackName, artist: 'Glass Owls', album: 'Night Lines', track: 1 }, { seconds: 2 });
  const running = downloads.update(db, upgrade.id, { status: 'downloading', phase: 'verify', stagingPath: held }, now)!;
  return { original, upgrade: running, held, oldFile };
}

describe('quality upgrades', () => {
  it('a better copy takes the place of the old one', async () => {
    const { original, upgrade, held, oldFile } = setUp('Lantern Hymn', 'flac');
    const placed = await fileJob(server.ctx, upgrade, { tried: [], failedRefs: [], errors: [], held }, { ffmpeg, fromStatus: 'downloading' });
    expect(placed.endsWith('.flac')).toBe(true);
    expect(fs.existsSync(placed)).toBe(true);
    const after = downloads.get(server.ctx.db, original.id)!;
    expect(after).toMatchObject({ status: 'done', finalPath: placed, qualityTier: 'lossless', format: 'flac' });
    expect(downloads.get(server.ctx.db, upgrade.id)).toMatchObject({ status: 'done', finalPath: placed });
    expect(fs.existsSync(oldFile)).toBe(false);
    expect(fs.existsSync(stagingDir(root, upgrade.id))).toBe(false);
  });

  it('a copy that is not better is dropped and the old file stays', async () => {
    const { original, upgrade, held, oldFile } = setUp('Paper Tide', 'mp3');
    await expect(fileJob(server.ctx, upgrade, { tried: [], failedRefs: [], errors: [], held }, { ffmpeg, fromStatus: 'downloading' })).rejects.toBeInstanceOf(JobLeft);
    expect(downloads.get(server.ctx.db, original.id)).toMatchObject({ status: 'done', finalPath: oldFile, qualityTier: 'low' });
    expect(downloads.get(server.ctx.db, upgrade.id)).toMatchObject({ status: 'failed', finalPath: null, error: expect.stringMatching(/No better copy/) });
    expect(fs.existsSync(oldFile)).toBe(true);
    // Only the old file is left in the album folder.
    expect(fs.readdirSync(path.dirname(oldFile)).filter((f) => f.includes('Paper Tide'))).toEqual([path.basename(oldFile)]);
  });

  it('the old file stays when another job still uses it', async () => {
    const { original, upgrade, held, oldFile } = setUp('Copper Bell', 'flac');
    const now = server.ctx.clock.now();
    const other = downloads.insert(server.ctx.db, { userId: 1, artistName: 'Glass Owls', trackName: 'Copper Bell', playlistType: 'flow-x' }, now);
    downloads.update(server.ctx.db, other.id, { status: 'done', finalPath: oldFile }, now);
    const placed = await fileJob(server.ctx, upgrade, { tried: [], failedRefs: [], errors: [], held }, { ffmpeg, fromStatus: 'downloading' });
    expect(downloads.get(server.ctx.db, original.id)!.finalPath).toBe(placed);
    expect(fs.existsSync(oldFile)).toBe(true);
  });
});
