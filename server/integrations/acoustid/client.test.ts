import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintOf, startAcoustIdFake, type AcoustIdFake } from '../../../test/fakes/acoustid/index.js';
import { decodeFingerprint, fingerprintSimilarity } from '../../../test/fakes/acoustid/chromaprint.js';
import { makeMelodyFile } from '../../../test/fixtures/audio.js';
import { chromaprintOf } from '../../library/chromaprint.js';
import { IntegrationError } from '../errors.js';
import { AcoustIdClient } from './client.js';

/**
 * The AcoustID client against the fake, with real Chromaprint fingerprints of generated melodies:
 * a lookup by the fingerprint of another encoding of seeded audio finds its recordings, unrelated
 * audio finds nothing; a wrong key, a broken fingerprint and the 3/s rate limit are answered as
 * AcoustID does, and the client's spacing keeps under that limit.
 */

let dir: string;
let fake: AcoustIdFake;
let song: string;
let other: string;
const recording = { id: 'd0000000-0000-4000-8000-000000000001', title: 'Paper Moons', artists: [{ id: 'd0000000-0000-4000-8000-0000000000a1', name: 'Lanternfish' }], duration: 10 };

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acoustid-client-'));
  fake = await startAcoustIdFake();
  fake.seedFile(makeMelodyFile(path.join(dir, 'seed.flac'), 'flac', {}, { seed: 9, seconds: 10 }), [recording]);
  song = makeMelodyFile(path.join(dir, 'song.mp3'), 'mp3', { title: 'whatever' }, { seed: 9, seconds: 10 });
  other = makeMelodyFile(path.join(dir, 'other.mp3'), 'mp3', {}, { seed: 4, seconds: 10 });
});
afterAll(async () => {
  await fake?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const client = (over: Partial<ConstructorParameters<typeof AcoustIdClient>[0]> = {}) =>
  new AcoustIdClient({ baseUrl: fake.url, apiKey: fake.apiKey, userAgent: 'Tonearm/test ( tests@example.org )', retryBaseMs: 10, ...over });

const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err as IntegrationError;
  }
  throw new Error('expected a failure');
};

const fp = async (file: string) => {
  const r = await chromaprintOf('/usr/bin/ffmpeg', file);
  if (!('fingerprint' in r)) throw new Error(r.unavailable);
  return r.fingerprint;
};

describe('Chromaprint', () => {
  it('computes the same compressed fingerprint on the tool thread as the fake does, and another encoding of the same audio is alike, other audio is not', async () => {
    const mine = await fp(song);
    expect(mine).toBe(fingerprintOf(song));
    const seed = fingerprintOf(path.join(dir, 'seed.flac'));
    const [a, b, c] = [mine, seed, await fp(other)].map((x) => decodeFingerprint(x).values);
    expect(fingerprintSimilarity(a!, b!)).toBeGreaterThan(0.9);
    expect(fingerprintSimilarity(a!, c!)).toBeLessThan(0.8);
  });

  it('says why when ffmpeg is missing', async () => {
    expect(await chromaprintOf(null, song)).toEqual({ unavailable: expect.stringMatching(/ffmpeg was not found/) });
    expect(await chromaprintOf(path.join(dir, 'no-ffmpeg'), song)).toEqual({ unavailable: expect.stringMatching(/ffmpeg could not start/) });
  });
});

describe('AcoustID client', () => {
  it('finds the recordings of a fingerprint, and nothing for unrelated audio', async () => {
    const found = await client().lookup(await fp(song), 10);
    expect(found).toHaveLength(1);
    expect(found[0]!.score).toBeGreaterThan(0.9);
    expect(found[0]!.recordings).toEqual([{ id: recording.id, title: 'Paper Moons', artist: 'Lanternfish', artistIds: [recording.artists[0]!.id], durationMs: 10_000 }]);
    expect(await client().lookup(await fp(other), 10)).toEqual([]);
    const sent = fake.requests.at(-1)!;
    expect([sent.method, sent.path]).toEqual(['POST', '/lookup']);
  });

  it('reports a wrong key and a broken fingerprint in its own words', async () => {
    const key = await failure(client({ apiKey: 'wrong' }).lookup(await fp(song), 10));
    expect([key.kind, key.message]).toEqual(['unauthorized', expect.stringMatching(/AcoustID reported error 4 \(the application key is invalid\)/)]);
    expect(key.message).not.toContain('wrong');
    const broken = await failure(client().lookup('AQAAnot-a-fingerprint', 10));
    expect([broken.kind, broken.message]).toEqual(['bad_request', expect.stringMatching(/error 3 \(the fingerprint is invalid\)/)]);
  });

  it('is answered with error 14 above 3 requests a second, and its own spacing stays under that', async () => {
    const print = await fp(song);
    const form = new URLSearchParams({ client: fake.apiKey, duration: '10', fingerprint: print, meta: 'recordings' }).toString();
    await new Promise((r) => setTimeout(r, 1100));
    const burst = await Promise.all(
      Array.from({ length: 5 }, () => fetch(`${fake.url}/lookup`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form }).then(async (r) => [r.status, ((await r.json()) as { error?: { code: number } }).error?.code ?? null])),
    );
    expect(burst.filter(([s]) => s === 429).every(([, code]) => code === 14)).toBe(true);
    expect(burst.filter(([s]) => s === 429).length).toBe(2);

    await new Promise((r) => setTimeout(r, 1100));
    const before = fake.requests.length;
    const paced = client({ retries: 0 });
    const answers = await Promise.all(Array.from({ length: 5 }, () => paced.lookup(print, 10)));
    expect(answers.every((a) => a.length === 1)).toBe(true);
    const times = fake.requests.slice(before).map((r) => r.at);
    expect(times).toHaveLength(5);
    for (let i = 3; i < times.length; i++) expect(times[i]! - times[i - 3]!).toBeGreaterThanOrEqual(1000);
  });

  it('waits and asks again when it is rate limited', async () => {
    fake.perSecond = 1;
    try {
      await new Promise((r) => setTimeout(r, 1100));
      const eager = client({ spacingMs: 0, baseUrl: fake.url.replace('127.0.0.1', 'localhost'), retries: 4, retryBaseMs: 300 });
      const print = await fp(song);
      const [a, b] = await Promise.all([eager.lookup(print, 10), eager.lookup(print, 10)]);
      expect([a.length, b.length]).toEqual([1, 1]);
    } finally {
      fake.perSecond = 3;
    }
  });
});
