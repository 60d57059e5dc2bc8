import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { derivedMbid } from '../fakes/lidarr/names.js';
import { setup, until, type Json, type Setup } from './helpers.js';

// A scanned local album that Lidarr also knows (monitored, no files in Lidarr): the index and the
// scan write the same canonical rows wherever their identity keys agree (decisions §8: MusicBrainz
// ids where there are any). Lidarr's track ids are the fake's recording ids (derivedMbid).
let s: Setup;
let dir: string;
const artistMbid = '00000000-0000-4000-8000-00000000a001';
const albumMbid = '00000000-0000-4000-8000-00000000a101';
const otherRecording = '00000000-0000-4000-8000-00000000b002';

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-lidarr-merge-'));
  const music = path.join(dir, 'music');
  const template = makeMp3Template(dir, 1);
  const tags = {
    artist: 'Aurora Lane', albumArtist: 'Aurora Lane', album: 'Dawn',
    musicbrainzReleaseGroupId: albumMbid, musicbrainzArtistId: artistMbid, musicbrainzAlbumArtistId: artistMbid,
  };
  // "First Light" carries the recording id Lidarr has for track 1; "Morning Tide" another one than Lidarr's track 2.
  writeTaggedMp3(path.join(music, 'Dawn', '01.mp3'), template, { ...tags, title: 'First Light', track: 1, musicbrainzRecordingId: derivedMbid('recording', albumMbid, 0) });
  writeTaggedMp3(path.join(music, 'Dawn', '02.mp3'), template, { ...tags, title: 'Morning Tide', track: 2, musicbrainzRecordingId: otherRecording });
  s = await setup({}, { musicDirs: [music], env: { TONEARM_LIBRARY_WATCH: 'false' } });
  await until(async () => (await s.call('GET', '/api/library/canonical?kind=tracks&pageSize=1')).body.total === 2);
  const entry = s.fake.state.catalogue.add({
    artistName: 'Aurora Lane',
    foreignArtistId: artistMbid,
    albums: [{ title: 'Dawn', foreignAlbumId: albumMbid, tracks: ['First Light', 'Morning Tide', 'Glass Sky'] }],
  });
  s.fake.state.addArtistFromCatalogue(
    entry,
    { rootFolderPath: s.root, qualityProfileId: 1, metadataProfileId: 1, monitored: true, monitorNewItems: 'all', tags: [] },
    () => true,
  );
  s.server.ctx.lidarr.index.requestFull('test');
  await s.indexed();
});
afterAll(async () => {
  await s.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const tracks = async (): Promise<Json[]> => (await s.call('GET', '/api/library/canonical?kind=tracks&pageSize=50')).body.items;

describe('a Lidarr album that is also in the scanned folders', () => {
  it('is one album: the release-group MBID of the tags is the one Lidarr has', async () => {
    const albums = (await s.call('GET', '/api/library/canonical?kind=albums&pageSize=50')).body;
    expect(albums.total).toBe(1);
  });

  it('merges a Lidarr track without a file into the local track with the same recording MBID', async () => {
    const first = (await tracks()).filter((t) => t.title === 'First Light');
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ hasFile: true, available: true, sources: ['aurral'] });
    // Lidarr's track the folders lack is there, without a file.
    expect((await tracks()).filter((t) => t.title === 'Glass Sky')).toMatchObject([{ hasFile: false, available: false }]);
  });

  it('keeps a local track and a Lidarr track with different recording MBIDs apart, even with the same title and number', async () => {
    const tide = (await tracks()).filter((t) => t.title === 'Morning Tide');
    expect(tide.map((t) => t.hasFile).sort()).toEqual([false, true]);
    expect(tide.map((t) => t.mbid).sort()).toEqual([derivedMbid('recording', albumMbid, 1), otherRecording].sort());
  });
});
