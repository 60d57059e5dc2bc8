import fs from 'node:fs';
import path from 'node:path';
import type { FakeArtist } from '../fakes/musicbrainz/index.js';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import type { TestServer } from '../helpers/server.js';

/** Plain checks (the bench uses these helpers outside vitest). */
export function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(what);
}

export async function json(res: Response): Promise<any> {
  const text = await res.text();
  return text ? JSON.parse(text) : undefined;
}

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
export const mbids = {
  harbor: uuid(9001),
  rgSalt: uuid(9101),
  relSalt: uuid(9201),
  anchor: uuid(9301),
  tidewater: uuid(9302),
  lighthouse: uuid(9303),
  oldPier: uuid(9304),
  undertow: uuid(9305),
};

/**
 * MusicBrainz knows Velvet Harbor's "Salt and Iron": Anchor and Old Pier are in the library,
 * Tidewater (found by ISRC), Lighthouse and Undertow (by name) can be downloaded. Their recordings
 * last 3 s, like the file the yt-dlp fake serves.
 */
export const musicbrainzCatalogue: FakeArtist[] = [
  {
    id: mbids.harbor,
    name: 'Velvet Harbor',
    releaseGroups: [
      {
        id: mbids.rgSalt,
        title: 'Salt and Iron',
        primaryType: 'Album',
        firstReleaseDate: '2022-05-01',
        releases: [
          {
            id: mbids.relSalt,
            title: 'Salt and Iron',
            tracks: [
              { id: uuid(9401), recordingId: mbids.anchor, title: 'Anchor', lengthMs: 3000 },
              { id: uuid(9402), recordingId: mbids.tidewater, title: 'Tidewater', lengthMs: 3000, isrc: 'USVH12200002' },
              { id: uuid(9403), recordingId: mbids.lighthouse, title: 'Lighthouse', lengthMs: 3000 },
              { id: uuid(9404), recordingId: mbids.oldPier, title: 'Old Pier', lengthMs: 3000 },
              { id: uuid(9405), recordingId: mbids.undertow, title: 'Undertow', lengthMs: 3000 },
            ],
          },
        ],
      },
    ],
  },
];

/** The library: Anchor (with its recording MBID) and Old Pier (names only). */
export function writeLibrary(dir: string): string {
  const music = path.join(dir, 'music');
  const template = makeMp3Template(dir);
  const album = { artist: 'Velvet Harbor', albumArtist: 'Velvet Harbor', album: 'Salt and Iron', date: '2022' };
  writeTaggedMp3(path.join(music, 'Velvet Harbor', 'Salt and Iron', '01 Anchor.mp3'), template, { ...album, title: 'Anchor', track: 1, musicbrainzRecordingId: mbids.anchor });
  writeTaggedMp3(path.join(music, 'Velvet Harbor', 'Salt and Iron', '04 Old Pier.mp3'), template, { ...album, title: 'Old Pier', track: 4 });
  fs.mkdirSync(path.join(dir, 'downloads'), { recursive: true });
  return music;
}

export async function scanLibrary(s: TestServer): Promise<void> {
  const res = await s.api('/api/library/refresh', { method: 'POST', token: s.admin.token, json: { mode: 'full' } });
  const { jobId } = await json(res);
  for (let i = 0; i < 400; i++) {
    const job = await json(await s.api(`/api/library/refresh/${jobId}`, { token: s.admin.token }));
    if (job.status === 'completed') return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('library scan did not complete');
}

/** A user with accessFlow (imports make download jobs) and their session token. */
export async function createUser(s: TestServer, username: string, permissions: Record<string, boolean> = { accessFlow: true }): Promise<{ id: number; token: string }> {
  const password = `${username}-password-1`;
  const made = await s.api('/api/users', { method: 'POST', token: s.admin.token, json: { username, password, role: 'user', permissions } });
  check(made.status === 201, `creating ${username} answered ${made.status}`);
  const user = await json(made);
  const login = await json(await s.api('/api/auth/login', { method: 'POST', json: { username, password } }));
  return { id: Number(user.id), token: login.token as string };
}

export async function until<T>(what: string, probe: () => T | undefined | false | null | Promise<T | undefined | false | null>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
