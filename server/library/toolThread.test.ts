import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { backgroundNice } from '../priority.js';
import { runTool } from './toolThread.js';

describe('tool thread', () => {
  it('runs a program to completion and reports its exit code and stderr', async () => {
    expect(await runTool('/bin/sh', ['-c', 'echo oops >&2; exit 3'])).toEqual({ code: 3, stderr: 'oops\n', startError: null });
    expect(await runTool('/bin/sh', ['-c', 'exit 0'])).toMatchObject({ code: 0, startError: null });
  });

  it('says why a program could not start', async () => {
    const r = await runTool('/nonexistent/tool', []);
    expect(r.code).toBeNull();
    expect(r.startError).toMatch(/ENOENT/);
  });

  it('an abort kills the program and rejects with an AbortError', async () => {
    const ac = new AbortController();
    const started = Date.now();
    const run = runTool('/bin/sh', ['-c', 'sleep 30'], ac.signal);
    setTimeout(() => ac.abort(), 100);
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(20_000);
    // The thread keeps serving after a kill.
    expect(await runTool('/bin/sh', ['-c', 'exit 0'])).toMatchObject({ code: 0 });
  });

  it.runIf(process.platform === 'linux')('tools run below the main thread, which keeps its priority', async () => {
    const main = os.getPriority(0);
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-nice-')), 'nice');
    // Field 19 of /proc/<pid>/stat is the nice value of the tool itself.
    expect(await runTool('/bin/sh', ['-c', `cut -d' ' -f19 /proc/$$/stat > ${out}`])).toMatchObject({ code: 0 });
    expect(Number(fs.readFileSync(out, 'utf8'))).toBe(Math.max(main, backgroundNice()));
    expect(os.getPriority(0)).toBe(main);
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
  });
});

describe('backgroundNice', () => {
  it('is 10 by default, 0 switches it off, and values are kept within 0–19', () => {
    expect(backgroundNice({})).toBe(10);
    expect(backgroundNice({ TONEARM_BACKGROUND_NICE: '0' })).toBe(0);
    expect(backgroundNice({ TONEARM_BACKGROUND_NICE: '5' })).toBe(5);
    expect(backgroundNice({ TONEARM_BACKGROUND_NICE: '40' })).toBe(19);
    expect(backgroundNice({ TONEARM_BACKGROUND_NICE: '-5' })).toBe(0);
    expect(backgroundNice({ TONEARM_BACKGROUND_NICE: 'high' })).toBe(10);
  });
});
