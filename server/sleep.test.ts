import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { sleep } from './sleep.js';

describe('sleep', () => {
  it('removes its abort listener when the wait ends, so polling with one signal adds none', async () => {
    const controller = new AbortController();
    for (let i = 0; i < 30; i++) await sleep(1, controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it("rejects with the signal's reason when aborted, before or during the wait", async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    const reason = new Error('job cancelled');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    await expect(sleep(1, controller.signal)).rejects.toBe(reason);
  });
});
