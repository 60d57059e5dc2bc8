import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FFMPEG } from '../../fixtures/audio.js';
import { startJsonFake, type FakeReply, type JsonFake } from '../http.js';
import { decodeFingerprint, FingerprintError, fingerprintSimilarity } from './chromaprint.js';

/**
 * AcoustID's web service v2 on 127.0.0.1 (`<url>/lookup`, GET or form POST): checks the application
 * key (`client`), reads the compressed Chromaprint fingerprint, and answers the seeded tracks whose
 * fingerprints are alike (bit similarity at the best alignment, not equality: another encoding of
 * the same audio matches) with their recordings when `meta` asks for `recordings`. Seeds are real
 * fingerprints of audio files, computed with the same tool the server uses (ffmpeg's chromaprint
 * muxer). More than 3 requests within a second are answered with error 14 (rate limit), as
 * AcoustID asks clients to stay under 3/s.
 */

export interface FakeAcoustIdRecording {
  id: string;
  title: string;
  artists: { id: string; name: string }[];
  /** Seconds. */
  duration?: number;
}

interface Seeded {
  trackId: string;
  values: Uint32Array;
  recordings: FakeAcoustIdRecording[];
}

export interface AcoustIdFake extends JsonFake {
  apiKey: string;
  /** Seeds the fingerprint of a real audio file as an AcoustID track with these recordings. */
  seedFile(file: string, recordings: FakeAcoustIdRecording[]): string;
  /** Lookups answered (not refused for the key or the rate). */
  lookups: number;
  /** Answers with error 14 when more than this many requests arrive within one second; 0: never. */
  perSecond: number;
  /** Matches below this similarity are not answered. */
  threshold: number;
}

/** The compressed fingerprint of a file (what fpcalc prints), computed by ffmpeg's chromaprint muxer. */
export function fingerprintOf(file: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acoustid-fake-'));
  try {
    const out = path.join(dir, 'fp.txt');
    execFileSync(FFMPEG, ['-hide_banner', '-loglevel', 'error', '-y', '-t', '120', '-i', file, '-f', 'chromaprint', '-fp_format', 'base64', out], { stdio: 'pipe' });
    return fs.readFileSync(out, 'utf8').trim();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const error = (code: number, message: string, status = 400): FakeReply => ({ status, body: { status: 'error', error: { code, message } } });

export async function startAcoustIdFake(options: { apiKey?: string } = {}): Promise<AcoustIdFake> {
  const apiKey = options.apiKey ?? 'fake-acoustid-app-key';
  const seeded: Seeded[] = [];
  const arrivals: number[] = [];
  let nextTrack = 1;

  const fake = (await startJsonFake((req, body) => {
    const now = Date.now();
    arrivals.push(now);
    while (arrivals.length && arrivals[0]! <= now - 1000) arrivals.shift();
    if (!req.path.replace(/\/+$/, '').endsWith('/lookup')) return { status: 404, body: { status: 'error', error: { code: 0, message: 'not found' } } };
    if (fake.perSecond > 0 && arrivals.length > fake.perSecond) return error(14, 'rate limit exceeded', 429);
    const params = new URLSearchParams(req.query);
    if (req.method === 'POST') {
      const type = String(req.headers['content-type'] ?? '');
      if (!type.startsWith('application/x-www-form-urlencoded')) return error(1, 'unknown format');
      for (const [k, v] of new URLSearchParams(body.toString('utf8'))) params.set(k, v);
    }
    const client = params.get('client');
    if (!client) return error(2, 'missing required parameter "client"');
    if (client !== fake.apiKey) return error(4, 'invalid API key');
    const fp = params.get('fingerprint');
    if (!fp) return error(2, 'missing required parameter "fingerprint"');
    const duration = Number(params.get('duration'));
    if (!params.get('duration')) return error(2, 'missing required parameter "duration"');
    if (!Number.isInteger(duration) || duration <= 0) return error(8, 'invalid duration');
    let values: Uint32Array;
    try {
      values = decodeFingerprint(fp).values;
    } catch (err) {
      if (err instanceof FingerprintError) return error(3, 'invalid fingerprint');
      throw err;
    }
    fake.lookups++;
    const meta = (params.get('meta') ?? '').split(/[ +]/);
    const results = seeded
      .map((s) => ({ s, score: fingerprintSimilarity(values, s.values) }))
      .filter((m) => m.score >= fake.threshold)
      .sort((a, b) => b.score - a.score)
      .map(({ s, score }) => ({
        id: s.trackId,
        score: Math.round(score * 10_000) / 10_000,
        ...(meta.includes('recordings') && {
          recordings: s.recordings.map((r) => ({ id: r.id, title: r.title, artists: r.artists, ...(r.duration !== undefined && { duration: r.duration }) })),
        }),
      }));
    return { body: { status: 'ok', results } };
  }, '/v2')) as AcoustIdFake;
  fake.apiKey = apiKey;
  fake.lookups = 0;
  fake.perSecond = 3;
  fake.threshold = 0.85;
  fake.seedFile = (file, recordings) => {
    const trackId = `00000000-aaaa-4000-8000-${String(nextTrack++).padStart(12, '0')}`;
    seeded.push({ trackId, values: decodeFingerprint(fingerprintOf(file)).values, recordings });
    return trackId;
  };
  return fake;
}
