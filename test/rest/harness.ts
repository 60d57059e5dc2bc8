import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { XMLParser } from 'fast-xml-parser';
import { scanRuns } from '../../server/db/libraryScanRuns.js';
import type { TestServer } from '../helpers/server.js';
import { makeAudioFile, makeCoverImage, makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const specFile = path.resolve(repoRoot, 'test/specs/opensubsonic/opensubsonic-openapi.bundled.json');

type ResponseObject = { $ref?: string; content?: Record<string, { schema: { $ref: string } }> };
type Spec = {
  paths: Record<string, { get?: { responses: Record<string, ResponseObject> } }>;
  components: { responses: Record<string, ResponseObject> };
};

let ajv: Ajv | undefined;
let spec: Spec | undefined;
const validators = new Map<string, ValidateFunction>();

/** The OpenSubsonic schema of a method's JSON answer (success or failure). */
export function validatorFor(method: string): ValidateFunction {
  let v = validators.get(method);
  if (v) return v;
  if (!ajv) {
    spec = JSON.parse(fs.readFileSync(specFile, 'utf8')) as Spec;
    ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    (addFormats as unknown as (a: Ajv) => void)(ajv);
    ajv.addSchema(spec as object, 'opensubsonic');
  }
  let response = spec!.paths[`/rest/${method}`]?.get?.responses['200'];
  if (response?.$ref) response = spec!.components.responses[response.$ref.split('/').pop()!];
  const ref = response?.content?.['application/json']?.schema.$ref;
  if (!ref) throw new Error(`no schema for ${method}`);
  v = ajv.getSchema(`opensubsonic${ref}`);
  if (!v) throw new Error(`schema ${ref} did not compile`);
  validators.set(method, v);
  return v;
}

export interface Credentials {
  username: string;
  password: string;
}

export type RestParams = Record<string, string | number | boolean | (string | number)[] | undefined>;

/** A /rest client for tests: token auth by default, JSON answers validated against the OpenSubsonic schema. */
export class RestClient {
  constructor(
    readonly server: TestServer,
    readonly creds: Credentials,
  ) {}

  url(method: string, params: RestParams = {}, auth: 'token' | 'password' | 'none' = 'token'): string {
    const q = new URLSearchParams();
    if (auth !== 'none') {
      q.set('u', this.creds.username);
      if (auth === 'token') {
        const salt = randomBytes(6).toString('hex');
        q.set('t', createHash('md5').update(this.creds.password + salt).digest('hex'));
        q.set('s', salt);
      } else q.set('p', this.creds.password);
    }
    q.set('v', '1.16.1');
    q.set('c', 'tonearm-tests');
    for (const [k, v] of Object.entries(params)) {
      if (v === undefined) continue;
      if (Array.isArray(v)) for (const item of v) q.append(k, String(item));
      else q.set(k, String(v));
    }
    return `${this.server.url}/rest/${method}?${q.toString()}`;
  }

  /** f=json; the answer must match the method's schema; returns the inner subsonic-response. */
  async json(method: string, params: RestParams = {}, auth: 'token' | 'password' | 'none' = 'token'): Promise<any> {
    const res = await fetch(this.url(method, { ...params, f: 'json' }, auth));
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${method}: HTTP ${res.status} ${text}`);
    const body = JSON.parse(text) as { 'subsonic-response': any };
    const validate = validatorFor(method);
    if (!validate(body)) throw new Error(`${method} answer does not match the OpenSubsonic schema: ${JSON.stringify(validate.errors?.slice(0, 5))}\n${text.slice(0, 800)}`);
    return body['subsonic-response'];
  }

  /** An ok answer (throws on status failed). */
  async ok(method: string, params: RestParams = {}): Promise<any> {
    const r = await this.json(method, params);
    if (r.status !== 'ok') throw new Error(`${method} failed: ${JSON.stringify(r.error)}`);
    return r;
  }

  async xml(method: string, params: RestParams = {}, auth: 'token' | 'password' | 'none' = 'token'): Promise<string> {
    const res = await fetch(this.url(method, params, auth));
    return res.text();
  }
}

export const xmlParser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseAttributeValue: false });

/** Waits until no scan run is queued or running (the run table is the source of truth). */
export async function waitForScans(server: TestServer, timeoutMs = 60_000): Promise<void> {
  const db = server.ctx.db;
  const until = Date.now() + timeoutMs;
  await new Promise((r) => setTimeout(r, 30));
  while (scanRuns.running(db) || scanRuns.queued(db)) {
    if (Date.now() > until) throw new Error('library scan did not finish');
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface Fixture {
  dir: string;
  music: string;
  /** Number of songs in the fixture library. */
  songCount: number;
  albumCount: number;
  artistCount: number;
}

export const BULK_ARTISTS = 12;
export const BULK_ALBUMS_PER_ARTIST = 6;
export const BULK_TRACKS_PER_ALBUM = 15;

/**
 * The test library: a few exact files made by ffmpeg (flac with art and a sidecar .lrc, mp3, ogg),
 * and 1,080 tagged mp3s written from one template so paging through search3 "" takes three pages.
 */
export function makeLibrary(dir: string, options: { bulk?: boolean } = {}): Fixture {
  const music = path.join(dir, 'music');
  const cover = makeCoverImage(path.join(dir, 'cover.png'), 'blue');
  makeAudioFile(path.join(music, 'Björk', 'Post', '01 Army of Me.flac'), 'flac', {
    title: 'Army of Me', artist: 'Björk', albumArtist: 'Björk', album: 'Post', track: 1, disc: 1, date: '1995-06-13', genre: 'Electronic',
    musicbrainzReleaseGroupId: 'rg-post', musicbrainzAlbumId: 'rel-post', musicbrainzAlbumArtistId: 'art-bjork',
    musicbrainzArtistId: 'art-bjork', musicbrainzRecordingId: 'rec-army',
  }, { cover, seconds: 4 });
  fs.writeFileSync(
    path.join(music, 'Björk', 'Post', '01 Army of Me.lrc'),
    '[ar:Björk]\n[ti:Army of Me]\n[offset:100]\n[00:00.50]Army of me\n[00:02.25]And if you complain once more\n',
  );
  makeAudioFile(path.join(music, 'Björk', 'Post', '02 Hyperballad.mp3'), 'mp3', {
    title: 'Hyperballad', artist: 'Björk', albumArtist: 'Björk', album: 'Post', track: 2, disc: 1, date: '1995', genre: 'Electronic',
    musicbrainzReleaseGroupId: 'rg-post', musicbrainzAlbumArtistId: 'art-bjork', musicbrainzArtistId: 'art-bjork',
  }, { seconds: 3 });
  makeAudioFile(path.join(music, 'The Beatles', 'Abbey Road', '01 Come Together.ogg'), 'ogg', {
    title: 'Come Together', artist: 'The Beatles', albumArtist: 'The Beatles', album: 'Abbey Road', track: 1, date: '1969', genre: 'Rock',
  }, { seconds: 2 });
  const template = makeMp3Template(dir, 1);
  let n = 0;
  for (let a = 1; a <= (options.bulk === false ? 0 : BULK_ARTISTS); a++) {
    const artist = `Bulk Artist ${String(a).padStart(2, '0')}`;
    for (let b = 1; b <= BULK_ALBUMS_PER_ARTIST; b++) {
      const album = `Bulk Album ${a}-${b}`;
      for (let t = 1; t <= BULK_TRACKS_PER_ALBUM; t++) {
        writeTaggedMp3(path.join(music, artist, album, `${String(t).padStart(2, '0')}.mp3`), template, {
          title: `Bulk Song ${a}-${b}-${t}`, artist, albumArtist: artist, album, track: t, date: String(1980 + b), genre: b % 2 ? 'Pop' : 'Jazz',
        });
        n++;
      }
    }
  }
  return {
    dir,
    music,
    songCount: 3 + n,
    albumCount: 2 + (options.bulk === false ? 0 : BULK_ARTISTS * BULK_ALBUMS_PER_ARTIST),
    artistCount: 2 + (options.bulk === false ? 0 : BULK_ARTISTS),
  };
}
