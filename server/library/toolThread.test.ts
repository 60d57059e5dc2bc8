import { describe, expect, it } from 'vitest';
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
});
