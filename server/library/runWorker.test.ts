import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../memory.js';
import { RUN_WORKER_IDLE_MS, RunWorker, plainWorker, withoutTsx } from './runWorker.js';

/** A worker speaking the run-worker protocol: answers each job, ends on `exit` or `stop`. */
const ECHO = `
const { parentPort, threadId } = require('node:worker_threads');
parentPort.on('message', (m) => {
  if (m.type === 'exit' || m.type === 'stop') parentPort.close();
  else parentPort.postMessage({ job: m.job, threadId });
});
`;

type Job = { type: 'job'; job: number };
type Reply = { job: number; threadId: number };

function echoWorker(idleMs: number) {
  const replies: Reply[] = [];
  const waiters: (() => void)[] = [];
  let exits = 0;
  let idleExits = 0;
  const idleExited: (() => void)[] = [];
  const worker: RunWorker<Job, Reply> = new RunWorker<Job, Reply>({
    spawn: () => new Worker(ECHO, { eval: true }),
    idleMs,
    onMessage: (reply) => {
      replies.push(reply);
      worker.idle();
      for (const w of waiters.splice(0)) w();
    },
    onExit: () => exits++,
    onIdleExit: () => {
      idleExits++;
      for (const w of idleExited.splice(0)) w();
    },
  });
  return {
    worker,
    replies,
    counts: () => ({ exits, idleExits }),
    run: (job: number) =>
      new Promise<Reply>((resolve) => {
        waiters.push(() => resolve(replies[replies.length - 1]!));
        worker.send({ type: 'job', job });
      }),
    idleExit: () => new Promise<void>((resolve) => idleExited.push(resolve)),
  };
}

describe('RunWorker memory at rest', () => {
  it('keeps an idle worker for about a minute, not ten', () => {
    expect(RUN_WORKER_IDLE_MS).toBeLessThanOrEqual(60_000);
  });

  it('ends the thread after its idle time, gives memory back, and starts a new thread for the next job', async () => {
    const w = echoWorker(50);
    try {
      const first = await w.run(1);
      expect(w.worker.running).toBe(true);
      await w.idleExit();
      expect(w.worker.running).toBe(false);
      // An idle exit is not a crash: onExit (which fails a running job) is not called.
      expect(w.counts()).toEqual({ exits: 0, idleExits: 1 });
      const second = await w.run(2);
      expect(second.job).toBe(2);
      expect(second.threadId).not.toBe(first.threadId);
    } finally {
      await w.worker.stop();
    }
  });

  it('a job sent while the idle thread is ending goes to a new thread, not the ending one', async () => {
    const w = echoWorker(20);
    try {
      const exited = w.idleExit();
      const first = await w.run(1);
      // The idle timer (20 ms) fires first and asks the thread to exit; a job follows at once.
      await new Promise((r) => setTimeout(r, 60));
      const next = await w.run(2);
      await exited;
      expect(next.job).toBe(2);
      expect(next.threadId).not.toBe(first.threadId);
      expect(w.counts().exits).toBe(0);
    } finally {
      await w.worker.stop();
    }
  });

  it('collects garbage without --expose-gc, and without exposing gc to the program', () => {
    expect(collectGarbage()).toBe(true);
    expect(collectGarbage()).toBe(true);
    expect(process.execArgv).not.toContain('--expose-gc');
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });
});

describe('the node flags a module worker gets', () => {
  it("leaves out tsx's loader flags (the worker runs plain JavaScript) and keeps the rest", () => {
    expect(withoutTsx(['--max-semi-space-size=4', '--import', 'tsx', '--v8-pool-size=1'])).toEqual(['--max-semi-space-size=4', '--v8-pool-size=1']);
    expect(withoutTsx(['--import=tsx', '--require', 'tsx/cjs', '--loader', '/app/node_modules/tsx/dist/loader.mjs'])).toEqual([]);
    expect(withoutTsx(['--import', './telemetry.mjs', '-r', 'dotenv/config', '--enable-source-maps'])).toEqual(['--import', './telemetry.mjs', '-r', 'dotenv/config', '--enable-source-maps']);
    expect(withoutTsx(['--import'])).toEqual(['--import']);
  });
});

describe('a plain-JavaScript worker', () => {
  it("starts without tsx and without the V8 flags a worker refuses, and keeps the process's other flags", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-plainworker-'));
    const file = path.join(dir, 'flags.mjs');
    fs.writeFileSync(file, "import { parentPort } from 'node:worker_threads';\nparentPort.postMessage(process.execArgv);\n");
    const original = process.execArgv;
    try {
      for (let i = 0; i < 2; i++) {
        // As npm start runs the server (the second start reuses what the first learned).
        process.execArgv = [...original, '--max-semi-space-size=4', '--v8-pool-size=1', '--enable-source-maps', '--import', 'tsx'];
        const worker = plainWorker(file, {});
        const flags = await new Promise<string[]>((resolve, reject) => worker.once('message', resolve).once('error', reject));
        await worker.terminate();
        expect(flags).toEqual([...withoutTsx(original), '--enable-source-maps']);
      }
    } finally {
      process.execArgv = original;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
