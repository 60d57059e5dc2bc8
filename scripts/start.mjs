// `npm start`: runs the server (server/index.ts through tsx) as a child process with the node flags
// and, on Linux, the malloc setting it is measured with (npm run bench:memory). glibc reads
// MALLOC_ARENA_MAX only when a process starts, and an npm script cannot set a variable in a way that
// works in both sh and Windows' cmd, so this small process sets it and stays as the server's parent
// (about 7 MB of memory of its own; its code pages are the server's). Node flags given after
// `npm start --` go to the server (e.g. `npm start -- --inspect`).
import { spawn } from 'node:child_process';
import os from 'node:os';
import { pathToFileURL } from 'node:url';

/**
 * V8's helper threads (parallel and concurrent garbage collection, background compilation) for all
 * of the server's threads: one fewer than the cores, at most Node's default of 4. They run at normal
 * priority and did the collection work of the lowered scan threads beside them: on 2 cores, during a
 * 10,000-file scan, the four of them took 43 % of a core from the scan threads (npm run bench:scan:
 * 2,960 files/s with Node's 4, 3,430 with 1, median of 4 each, alternating), and each holds memory.
 */
export function v8PoolSize(cores = os.availableParallelism()) {
  return Math.max(1, Math.min(4, cores - 1));
}

/**
 * V8's young generation of the main thread at most 8 MB (two 4 MB semi-spaces) instead of 32: the
 * heap a busy minute grows stays with an idle process. And V8's helper threads (v8PoolSize).
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=4', `--v8-pool-size=${v8PoolSize()}`];

/**
 * glibc's malloc arenas on Linux (default 8 per core): every thread that allocates gets its own, and
 * what a thread freed stays in its arena, also after the thread ended (the scan worker, the tag
 * thread). npm run bench:memory, 20,000 files, idle 90 s after 3,000 mixed requests: 214 MB with
 * glibc's default, 166 MB with two; of the difference V8's platform threads (GC, compilers) hold
 * about 13 MB (201 MB with --v8-pool-size=1), libuv's pool nothing measurable (UV_THREADPOOL_SIZE=1:
 * 214 MB), the rest is the ended worker threads' arenas. A value in the environment wins; the
 * desktop shell sets the same (main/supervisor.ts).
 */
export const MALLOC_ARENAS = '2';

export function serverEnv(env = process.env, platform = process.platform) {
  return platform === 'linux' && env.MALLOC_ARENA_MAX === undefined ? { ...env, MALLOC_ARENA_MAX: MALLOC_ARENAS } : { ...env };
}

function main() {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...process.argv.slice(2), '--import', 'tsx', 'server/index.ts'], {
    env: serverEnv(),
    stdio: 'inherit',
  });
  // The server stops on these itself (a terminal's Ctrl+C reaches both processes); passed on for a
  // signal sent to this process alone (a supervisor, kill).
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal) {
      for (const s of signals) process.removeAllListeners(s);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
