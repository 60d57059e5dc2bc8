import { describe, expect, it } from 'vitest';
import {
  albumGroups,
  clampProgress,
  expectedLengthText,
  groupJobs,
  identityText,
  lengthText,
  mergeFetched,
  parseWhole,
  progressText,
  progressValue,
  qualityText,
  sourceLabel,
  testBody,
  testOutcome,
  upsertJob,
  type DownloadJob,
} from '../../renderer/src/downloads/logic.js';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 24, 1, minute)).toISOString();

const job = (id: string, status: DownloadJob['status'], patch: Partial<DownloadJob> = {}): DownloadJob => ({
  id,
  status,
  phase: null,
  artistName: 'Velvet Harbor',
  trackName: `Track ${id}`,
  albumName: 'Salt and Iron',
  playlistType: 'album',
  albumRequestId: null,
  downloadSource: null,
  progress: 0,
  error: null,
  blockReason: null,
  stagingPath: null,
  finalPath: null,
  quality: null,
  createdAt: at(Number(id)),
  updatedAt: at(Number(id)),
  playlistId: null,
  userId: null,
  streamFormat: null,
  artistMbid: null,
  albumMbid: null,
  recordingMbid: null,
  trackNumber: null,
  durationMs: null,
  expectedLength: null,
  fileDurationMs: null,
  announcedDurationMs: null,
  identity: null,
  upgrade: false,
  reused: false,
  blockedAt: null,
  completedAt: null,
  ...patch,
});

describe('groupJobs', () => {
  it('puts pending and downloading in Active (downloading first, then oldest), blocked in review, the rest in history newest first', () => {
    const groups = groupJobs([
      job('1', 'pending'),
      job('2', 'done', { completedAt: at(30) }),
      job('3', 'downloading'),
      job('4', 'blocked', { blockedAt: at(20) }),
      job('5', 'failed', { updatedAt: at(40) }),
      job('6', 'pending'),
      job('7', 'blocked', { blockedAt: at(10) }),
      job('8', 'cancelled', { updatedAt: at(35) }),
      job('9', 'downloading'),
    ]);
    expect(groups.active.map((j) => j.id)).toEqual(['3', '9', '1', '6']);
    expect(groups.review.map((j) => j.id)).toEqual(['7', '4']);
    expect(groups.history.map((j) => j.id)).toEqual(['5', '8', '2']);
  });

  it('gives three empty groups for no jobs', () => {
    expect(groupJobs([])).toEqual({ active: [], review: [], history: [] });
  });
});

describe('upsertJob and mergeFetched', () => {
  it('replaces a job by id, adds an unknown one, and ignores an event older than what the list holds', () => {
    const list = [job('1', 'pending'), job('2', 'downloading', { progress: 10, updatedAt: at(10) })];
    const moved = upsertJob(list, job('2', 'downloading', { progress: 55, updatedAt: at(11) }));
    expect(moved.map((j) => [j.id, j.progress])).toEqual([
      ['1', 0],
      ['2', 55],
    ]);
    expect(upsertJob(moved, job('2', 'downloading', { progress: 20, updatedAt: at(10) }))).toBe(moved);
    expect(upsertJob(moved, job('3', 'blocked')).map((j) => j.id)).toEqual(['1', '2', '3']);
  });

  it('takes the fetched list but keeps a job that a live event moved on after the request left', () => {
    const current = [job('1', 'done', { updatedAt: at(20) }), job('2', 'pending')];
    const fetched = [job('1', 'downloading', { updatedAt: at(15) }), job('3', 'pending')];
    expect(mergeFetched(current, fetched).map((j) => [j.id, j.status])).toEqual([
      ['1', 'done'],
      ['3', 'pending'],
    ]);
  });
});

describe('progress', () => {
  it('clamps and rounds what the server sends', () => {
    expect([clampProgress(-5), clampProgress(42.6), clampProgress(180), clampProgress(Number.NaN), clampProgress('7')]).toEqual([0, 43, 100, 0, 0]);
  });

  it('says what an active job does, with the percentage only while bytes move', () => {
    expect(progressText(job('1', 'pending'))).toBe('Waiting to start');
    expect(progressText(job('1', 'downloading', { phase: 'search' }))).toBe('Searching the sources');
    expect(progressText(job('1', 'downloading', { phase: 'download', progress: 37.4, downloadSource: 'slskd' }))).toBe('Downloading from Soulseek (slskd) · 37%');
    expect(progressText(job('1', 'downloading', { phase: 'verify' }))).toBe('Checking the file');
    expect(progressText(job('1', 'downloading', { phase: 'file' }))).toBe('Adding to the library');
    expect(progressText(job('1', 'failed'))).toBe('Failed');
  });

  it('gives the bar a value while downloading, verifying and filing, none (indeterminate) before', () => {
    expect(progressValue(job('1', 'pending', { progress: 50 }))).toBeNull();
    expect(progressValue(job('1', 'downloading', { phase: 'search' }))).toBeNull();
    expect(progressValue(job('1', 'downloading', { phase: 'download', progress: 61 }))).toBe(61);
    expect(progressValue(job('1', 'downloading', { phase: 'verify', progress: 0 }))).toBe(100);
  });
});

describe('labels', () => {
  it('names sources in the UI’s words and passes unknown ones through', () => {
    expect([sourceLabel('slskd'), sourceLabel('usenet'), sourceLabel('ytdlp'), sourceLabel(null), sourceLabel('bandcamp')]).toEqual([
      'Soulseek (slskd)',
      'Usenet',
      'yt-dlp',
      'no source yet',
      'bandcamp',
    ]);
  });

  it('describes quality by bit depth and rate for lossless, by bitrate otherwise', () => {
    expect(qualityText({ format: 'flac', bitrate: 900, sampleRate: 96000, bitDepth: 24, tier: 'lossless' })).toBe('FLAC · 24-bit / 96 kHz');
    expect(qualityText({ format: 'flac', bitrate: null, sampleRate: 44100, bitDepth: 16, tier: 'lossless' })).toBe('FLAC · 16-bit / 44.1 kHz');
    expect(qualityText({ format: 'mp3', bitrate: 320, sampleRate: 44100, bitDepth: null, tier: 'high' })).toBe('MP3 · 320 kbps');
    expect(qualityText({ format: 'mp3', bitrate: 192000, sampleRate: null, bitDepth: null, tier: 'medium' })).toBe('MP3 · 192 kbps');
    expect(qualityText(null)).toBe('');
  });
});

describe('albumGroups', () => {
  it('groups active tracks by album request, counts the album’s finished tracks from all jobs, and leaves lone tracks alone', () => {
    const all = [
      job('1', 'done', { albumRequestId: '7', trackNumber: 1 }),
      job('2', 'downloading', { albumRequestId: '7', trackNumber: 3, phase: 'download', progress: 50 }),
      job('3', 'pending', { albumRequestId: '7', trackNumber: 2 }),
      job('4', 'failed', { albumRequestId: '7', trackNumber: 4 }),
      job('5', 'pending', { albumRequestId: null, albumName: null, trackName: 'Single' }),
    ];
    const active = groupJobs(all).active;
    const groups = albumGroups(active, all);
    expect(groups.map((g) => [g.key, g.jobs.map((j) => j.id), g.done, g.total, g.progress])).toEqual([
      ['album:7', ['3', '2'], 1, 4, 38],
      ['job:5', ['5'], 0, 1, 0],
    ]);
  });
});

describe('connection tests', () => {
  it('sends the typed fields without the empty ones (absent means the saved value)', () => {
    expect(testBody({ url: ' http://127.0.0.1:5030 ', apiKey: '', downloadPath: '/x', enabled: true }, ['url', 'apiKey'])).toEqual({ url: 'http://127.0.0.1:5030' });
    expect(testBody({ url: 'http://h', apiKey: '********' }, ['url', 'apiKey'])).toEqual({ url: 'http://h', apiKey: '********' });
  });

  it('reads a test that connected but cannot use the folder as a warning', () => {
    expect(testOutcome({ success: true, message: 'Connected to slskd 0.22', downloadsFolder: { reachable: true, reason: null } })).toEqual({ tone: 'success', text: 'Connected to slskd 0.22' });
    expect(testOutcome({ success: true, message: 'x', completedFolder: { readable: false, reason: 'missing' } }).tone).toBe('warn');
    expect(testOutcome({ success: true, message: 'Connected to Prowlarr 1.2, but it has no enabled Usenet indexer', usenetIndexers: 0 }).tone).toBe('warn');
    expect(testOutcome({ success: true, version: '4.1' })).toEqual({ tone: 'success', text: 'Connected (version 4.1)' });
  });
});

describe('parseWhole', () => {
  it('accepts whole numbers in range only', () => {
    expect([parseWhole('3', 1, 8), parseWhole(' 8 ', 1, 8), parseWhole('9', 1, 8), parseWhole('2.5', 1, 8), parseWhole('', 0, 1), parseWhole('-1', 0, 5)]).toEqual([3, 8, null, null, null, null]);
  });
});

describe('why a download is trusted (issue 26)', () => {
  it('shows the expected length with its source and the real length', () => {
    expect(expectedLengthText({ ms: 203_000, source: 'musicbrainz:search' })).toBe('3:23 (MusicBrainz, by artist and title)');
    expect(expectedLengthText({ ms: 61_000, source: 'request' })).toBe('1:01 (from the request)');
    expect(expectedLengthText({ ms: null, source: 'none' })).toBe('unknown (not known to MusicBrainz)');
    expect(expectedLengthText(null)).toBe('unknown');
    expect([lengthText(20_400), lengthText(null), lengthText(0)]).toEqual(['0:20', '—', '—']);
  });

  it('says what the fingerprint found', () => {
    expect(identityText({ status: 'different', note: 'sounds like Other Band – Wrong Song', recordingMbid: 'x' })).toBe(
      'Sounds like another recording (AcoustID): sounds like Other Band – Wrong Song',
    );
    expect(identityText({ status: 'verified', note: null, recordingMbid: 'x' })).toBe('Verified by its sound (AcoustID)');
    expect(identityText(null)).toBe('');
  });
});
