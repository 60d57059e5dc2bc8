import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileTags } from '../../server/library/tags.js';
import { RUN_WORKER_IDLE_MS } from '../../server/library/runWorker.js';
import { readTagsOffThread, setTagThreadIdleMs, stopTagThread, tagThreadRunning } from '../../server/library/tagThread.js';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';

describe('tag thread', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-tagthread-'));
    const template = makeMp3Template(dir, 2);
    file = path.join(dir, 'Artist', 'Album', '01 Song.mp3');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeTaggedMp3(file, template, { title: 'Off Thread', artist: 'Tag Reader', album: 'Workers', track: 1 });
  });
  afterAll(async () => {
    await stopTagThread();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads the same facts as the main thread, without the picture', async () => {
    const here = await readFileTags(file, path.dirname(file));
    const [a, b] = await Promise.all([readTagsOffThread(file), readTagsOffThread(file)]);
    expect(a).toEqual({ ...here, picture: null });
    expect(b).toEqual(a);
    expect(a.title).toBe('Off Thread');
    expect(a.durationMs).toBeGreaterThan(1500);
  });

  it('reports an unreadable file as the main thread does, and keeps serving after a restart', async () => {
    const junk = path.join(dir, 'junk.mp3');
    fs.writeFileSync(junk, 'not audio at all');
    const tags = await readTagsOffThread(junk);
    expect(tags).toEqual({ ...(await readFileTags(junk, dir)), picture: null });
    expect(tags.durationMs).toBe(0);

    const inFlight = readTagsOffThread(file);
    await stopTagThread();
    await expect(inFlight).rejects.toThrow(/ended/);
    expect((await readTagsOffThread(file)).title).toBe('Off Thread');
  });

  it('a thread that ends fails only its own requests, not those already sent to the next one', async () => {
    expect((await readTagsOffThread(file)).title).toBe('Off Thread');
    // The old thread is ending (as at its idle time) while a read already went to a new one.
    const ending = stopTagThread();
    const next = readTagsOffThread(file);
    await ending;
    expect((await next).title).toBe('Off Thread');
  });

  it('ends after its idle time, so an idle server does not keep its heap; the next read starts a new one', async () => {
    setTagThreadIdleMs(50);
    try {
      expect((await readTagsOffThread(file)).title).toBe('Off Thread');
      const until = Date.now() + 10_000;
      while (tagThreadRunning() && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(tagThreadRunning()).toBe(false);
      expect((await readTagsOffThread(file)).title).toBe('Off Thread');
      expect(tagThreadRunning()).toBe(true);
    } finally {
      setTagThreadIdleMs(RUN_WORKER_IDLE_MS);
    }
  });
});
