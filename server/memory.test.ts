import { describe, expect, it } from 'vitest';
import { QuietAfterWork, reclaimWhenQuiet } from './memory.js';

describe('giving memory back when the server goes quiet', () => {
  it('answers once per busy spell, after the quiet time, and never for a server that was not busy', () => {
    const quiet = new QuietAfterWork({ quietMs: 30_000, busyUtilization: 0.02 });
    // Idle from the start: nothing to give back.
    for (let t = 0; t <= 120_000; t += 5_000) expect(quiet.tick(0.001, t)).toBe(false);
    // A busy spell, then quiet: true once, 30 s after the last busy interval.
    expect(quiet.tick(0.4, 125_000)).toBe(false);
    expect(quiet.tick(0.3, 130_000)).toBe(false);
    const answers: number[] = [];
    for (let t = 135_000; t <= 250_000; t += 5_000) if (quiet.tick(0.001, t)) answers.push(t);
    expect(answers).toEqual([160_000]);
    // A busy interval during the quiet time starts the wait again.
    expect(quiet.tick(0.5, 255_000)).toBe(false);
    expect(quiet.tick(0.001, 280_000)).toBe(false);
    expect(quiet.tick(0.1, 282_000)).toBe(false);
    expect(quiet.tick(0.001, 300_000)).toBe(false);
    expect(quiet.tick(0.001, 312_000)).toBe(true);
  });

  it('runs the release after real work on the event loop has stopped', async () => {
    let released = 0;
    const stop = reclaimWhenQuiet(() => released++, { checkMs: 20, quietMs: 60, busyUtilization: 0.5 });
    try {
      // Busy: the loop is held for 200 ms at a time, so its utilization is near 1.
      const until = performance.now() + 200;
      while (performance.now() < until) Math.sqrt(Math.random());
      const deadline = Date.now() + 10_000;
      while (released === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(released).toBe(1);
    } finally {
      stop();
    }
  });
});
