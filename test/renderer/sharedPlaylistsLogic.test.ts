import { describe, expect, it } from 'vitest';
import { playlistHref } from '../../renderer/src/imports/logic.js';
import {
  ago,
  canResearch,
  checkInterval,
  checkUrl,
  countsText,
  entryGroup,
  entryKey,
  exportFileName,
  fileImportBody,
  ownerText,
  playableTracks,
  statusText,
  syncText,
  withoutTrack,
  type SharedDetail,
  type SharedEntry,
} from '../../renderer/src/playlists/sharedLogic.js';

const NOW = Date.parse('2026-11-26T12:00:00Z');
const entry = (n: number, status: string, extra: Partial<SharedEntry> = {}): SharedEntry => ({
  entryId: n,
  jobId: String(100 + n),
  position: n,
  artistName: 'Velvet Harbor',
  trackName: `Song ${n}`,
  albumName: null,
  durationMs: 1000 * n,
  recordingMbid: null,
  trackId: status === 'available' ? String(10 + n) : null,
  status,
  error: null,
  fromSource: false,
  removedFromSource: false,
  ...extra,
});

describe('shared playlist logic', () => {
  it('sorts entry states into owned, downloading and missing, and words them', () => {
    expect(['available', 'processing', 'pending', 'downloading', 'blocked', 'failed', 'cancelled', 'missing'].map(entryGroup)).toEqual([
      'owned', 'downloading', 'downloading', 'downloading', 'downloading', 'missing', 'missing', 'missing',
    ]);
    expect(statusText({ status: 'failed', error: 'No source has it' })).toBe('Not found: No source has it');
    expect(statusText({ status: 'pending', error: null })).toBe('Waiting to download');
    expect(canResearch({ status: 'cancelled' })).toBe(true);
    expect(canResearch({ status: 'downloading' })).toBe(false);
    // A jobless entry is addressed by its entry id.
    expect(entryKey({ jobId: null, entryId: 7 })).toBe('7');
    expect(entryKey({ jobId: '42', entryId: 7 })).toBe('42');
  });

  it('describes counts, owner and the sync state', () => {
    expect(countsText({ trackCount: 0, missingCount: 0 })).toBe('Empty');
    expect(countsText({ trackCount: 1, missingCount: 0 })).toBe('1 track');
    expect(countsText({ trackCount: 1200, missingCount: 3 })).toBe('1,200 tracks · 3 missing');
    expect(ownerText({ owner: 'eve', ownerUserId: 2, canEdit: true }, 2)).toBe('Yours');
    expect(ownerText({ owner: 'eve', ownerUserId: 2, canEdit: true }, 1)).toBe('By eve · you can edit it');
    expect(ownerText({ owner: 'eve', ownerUserId: 2, canEdit: false }, 3)).toBe('By eve · read-only');
    const base = { sourceUrl: 'https://x/p.jspf', syncEnabled: true, syncIntervalHours: 24, lastSyncedAt: '2026-11-26T09:00:00Z', lastSyncError: null };
    expect(syncText({ ...base, sourceUrl: null }, NOW)).toBeNull();
    expect(syncText(base, NOW)).toBe('Syncs daily · synced 3 hours ago');
    expect(syncText({ ...base, syncIntervalHours: 1 }, NOW)).toBe('Syncs every hour · synced 3 hours ago');
    expect(syncText({ ...base, syncIntervalHours: 72, lastSyncedAt: null }, NOW)).toBe('Syncs every 3 days · not synced yet');
    expect(syncText({ ...base, syncEnabled: false }, NOW)).toBe('Sync off · synced 3 hours ago');
    expect(syncText({ ...base, lastSyncError: 'The playlist source answered HTTP 404' }, NOW)).toBe('Sync failed 3 hours ago: The playlist source answered HTTP 404');
    expect(ago('2026-11-26T11:59:30Z', NOW)).toBe('just now');
    expect(ago('2026-11-24T12:00:00Z', NOW)).toBe('2 days ago');
  });

  it('names an M3U file without #PLAYLIST after the file, and leaves named documents alone', () => {
    const m3u = '#EXTM3U\n#EXTINF:180,A - B\nb.mp3\n';
    expect(fileImportBody('Sunday morning.m3u8', m3u, '')).toEqual({ content: m3u, name: 'Sunday morning' });
    expect(fileImportBody('x.m3u', `#EXTM3U\n#PLAYLIST:Mine\n${m3u}`, '')).toEqual({ content: `#EXTM3U\n#PLAYLIST:Mine\n${m3u}` });
    expect(fileImportBody('picks.jspf', '{"playlist":{}}', '')).toEqual({ content: '{"playlist":{}}' });
    expect(fileImportBody('picks.jspf', '{"playlist":{}}', '  Typed  ')).toEqual({ content: '{"playlist":{}}', name: 'Typed' });
  });

  it('reads the export file name and checks what was typed', () => {
    expect(exportFileName(`attachment; filename*=UTF-8''Caf%C3%A9%20mix.json`, 'p.json')).toBe('Café mix.json');
    expect(exportFileName('attachment; filename="List.m3u8"', 'p.json')).toBe('List.m3u8');
    expect(exportFileName(null, 'p.json')).toBe('p.json');
    expect(checkInterval('12')).toEqual({ ok: true, hours: 12 });
    expect(checkInterval('0')).toMatchObject({ ok: false });
    expect(checkInterval('1.5')).toMatchObject({ ok: false });
    expect(checkInterval('721')).toMatchObject({ ok: false });
    expect(checkUrl(' https://lb.example/p.jspf ')).toEqual({ ok: true, url: 'https://lb.example/p.jspf' });
    expect(checkUrl('ftp://x/y')).toMatchObject({ ok: false });
    expect(checkUrl('not a url')).toMatchObject({ ok: false });
  });

  it('plays only the owned tracks, and removes one entry with its counts', () => {
    const detail = { trackCount: 3, availableCount: 1, missingCount: 2, tracks: [entry(1, 'available'), entry(2, 'failed'), entry(3, 'pending', { jobId: null })] } as unknown as SharedDetail;
    expect(playableTracks(detail)).toEqual([{ id: 11, title: 'Song 1', artistName: 'Velvet Harbor', albumTitle: null, durationMs: 1000, available: true }]);
    const less = withoutTrack(detail, '3');
    expect(less.tracks.map((e) => e.entryId)).toEqual([1, 2]);
    expect([less.trackCount, less.availableCount, less.missingCount]).toEqual([2, 1, 1]);
    expect(withoutTrack(detail, '101').availableCount).toBe(0);
    expect(withoutTrack(detail, 'nope')).toBe(detail);
  });

  it('links an import to the playlist it made', () => {
    expect(playlistHref({ type: 'static', id: '12' })).toBe('/playlists/12');
    expect(playlistHref({ type: 'shared', id: 'a-b' })).toBe('/playlists/shared/a-b');
  });
});
