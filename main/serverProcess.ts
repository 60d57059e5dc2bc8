import { fork } from 'node:child_process';
import os from 'node:os';
import { createInterface } from 'node:readline';

/**
 * The process-launcher facade the supervisor is written against. Electron's `utilityProcess.fork`
 * and Node's `child_process.fork` both fit behind it, so the supervisor is tested on plain Node.
 */
export interface ServerProcess {
  readonly pid: number | undefined;
  onStdoutLine(listener: (line: string) => void): void;
  onStderrLine(listener: (line: string) => void): void;
  /** Called once, after the process has exited and its output has been read. */
  onExit(listener: (exit: ProcessExit) => void): void;
  kill(signal: 'SIGTERM' | 'SIGKILL'): void;
}

export interface ProcessExit {
  code: number | null;
  signal: string | null;
}

export interface ProcessLauncher {
  fork(modulePath: string, args: string[], options: { env: Record<string, string> }): ServerProcess;
}

type LineListener = (line: string) => void;

/** Splits a byte stream into lines and fans them out; resolves `closed` when the stream ends. */
function lineStream(stream: NodeJS.ReadableStream | null): {
  subscribe(listener: LineListener): void;
  closed: Promise<void>;
} {
  const listeners: LineListener[] = [];
  if (!stream) return { subscribe: () => {}, closed: Promise.resolve() };
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  lines.on('line', (line) => {
    for (const listener of listeners) listener(line);
  });
  const closed = new Promise<void>((resolve) => lines.once('close', () => resolve()));
  return { subscribe: (listener) => listeners.push(listener), closed };
}

/**
 * Runs the server as a plain Node child process (tests, headless development). `execArgv` is
 * explicit so the child never inherits the parent's flags (a test runner's, for instance);
 * `['--import', 'tsx']` runs the TypeScript sources directly.
 */
export function createChildProcessLauncher(options: { execArgv?: string[] } = {}): ProcessLauncher {
  const execArgv = options.execArgv ?? [];
  return {
    fork(modulePath, args, { env }) {
      const child = fork(modulePath, args, { env, execArgv, silent: true });
      const stdout = lineStream(child.stdout);
      const stderr = lineStream(child.stderr);
      // 'close' comes after stdio has drained, so no log line arrives after the exit is reported.
      const exited = new Promise<ProcessExit>((resolve) => {
        child.once('close', (code, signal) => resolve({ code, signal }));
        child.once('error', () => resolve({ code: null, signal: null }));
      });
      return {
        pid: child.pid,
        onStdoutLine: stdout.subscribe,
        onStderrLine: stderr.subscribe,
        onExit: (listener) => void exited.then(listener),
        kill: (signal) => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
        },
      };
    },
  };
}

export const childProcessLauncher: ProcessLauncher = createChildProcessLauncher();

/** The part of Electron's `UtilityProcess` used here, declared structurally so this file needs no Electron. */
export interface UtilityProcessLike {
  readonly pid: number | undefined;
  readonly stdout: NodeJS.ReadableStream | null;
  readonly stderr: NodeJS.ReadableStream | null;
  once(event: 'exit', listener: (code: number) => void): unknown;
  kill(): boolean;
}

export type UtilityFork = (
  modulePath: string,
  args: string[],
  options: { env: Record<string, string>; execArgv: string[]; stdio: 'pipe'; serviceName: string },
) => UtilityProcessLike;

/**
 * The node flags the server runs with, as `npm start` gives them (scripts/start.mjs SERVER_NODE_FLAGS,
 * which main/supervisor.test.ts keeps equal): the main thread's young generation at most 8 MB, so
 * the heap a busy minute grows stays small once the server is idle; V8's helper threads one fewer
 * than the cores (at most 4), so they leave the scan threads their core.
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=4', `--v8-pool-size=${Math.max(1, Math.min(4, os.availableParallelism() - 1))}`];

/** Runs the server in an Electron utility process; `index.ts` passes `utilityProcess.fork`. */
export function utilityProcessLauncher(utilityFork: UtilityFork): ProcessLauncher {
  return {
    fork(modulePath, args, { env }) {
      const child = utilityFork(modulePath, args, { env, execArgv: SERVER_NODE_FLAGS, stdio: 'pipe', serviceName: 'Tonearm server' });
      const stdout = lineStream(child.stdout);
      const stderr = lineStream(child.stderr);
      let running = true;
      const exited = new Promise<ProcessExit>((resolve) => {
        child.once('exit', (code) => {
          running = false;
          // Let the pipes drain, but never wait on them for long.
          const drained = Promise.all([stdout.closed, stderr.closed]);
          const patience = new Promise((done) => setTimeout(done, 1000).unref());
          void Promise.race([drained, patience]).then(() => resolve({ code, signal: null }));
        });
      });
      return {
        pid: child.pid,
        onStdoutLine: stdout.subscribe,
        onStderrLine: stderr.subscribe,
        onExit: (listener) => void exited.then(listener),
        kill: (signal) => {
          if (!running) return;
          // UtilityProcess.kill() sends SIGTERM on POSIX; a forced kill goes through the pid.
          if (signal === 'SIGTERM' || child.pid === undefined) child.kill();
          else process.kill(child.pid, 'SIGKILL');
        },
      };
    },
  };
}
