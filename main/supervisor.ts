import { EventEmitter } from 'node:events';
import path from 'node:path';
import type { ProcessExit, ProcessLauncher, ServerProcess } from './serverProcess.js';

/** What the shell tells the server, by environment, at every (re)start. */
export interface ServerLaunchConfig {
  port: number;
  host: string;
  dataDir: string;
  musicDirs: string[];
  /** The built web UI; the packaged app's layout differs from the repository's. */
  uiDir?: string;
}

export interface ServerAddress {
  host: string;
  port: number;
  /** The path prefix the server is served under ('' for the root). */
  basePath: string;
  url: string;
}

export type SupervisorState =
  | 'idle'
  | 'starting'
  | 'running'
  | 'waiting-to-restart'
  | 'stopping'
  | 'stopped'
  | 'failed';

export type ServerFailureReason = 'ready-timeout' | 'crash-loop' | 'stopped';

/** Why the server could not be brought up; `message` is written for the error window. */
export class ServerStartError extends Error {
  constructor(
    readonly reason: ServerFailureReason,
    message: string,
    readonly recentOutput: string[] = [],
  ) {
    super(message);
    this.name = 'ServerStartError';
  }
}

export interface SupervisorOptions {
  launcher: ProcessLauncher;
  /** The server's entry module (`dist/server/index.js` in the app). */
  modulePath: string;
  args?: string[];
  /** Read at every start, so a restart picks up changed settings. */
  config: () => ServerLaunchConfig;
  /** Inherited environment; defaults to this process's. */
  baseEnv?: NodeJS.ProcessEnv;
  log?: { append(line: string): void };
  readyTimeoutMs?: number;
  stopGraceMs?: number;
  restartDelayMs?: { initial: number; max: number };
  crashLimit?: { crashes: number; windowMs: number };
  now?: () => number;
}

export interface SupervisorEvents {
  ready: [ServerAddress];
  exited: [ProcessExit & { expected: boolean }];
  restarting: [{ crashes: number; delayMs: number }];
  failed: [ServerStartError];
}

// With a base path (TONEARM_BASE_PATH or the setting) the line ends with it: `…:3001/music`.
const READY_LINE = /^listening on http:\/\/(\[[^\]]+\]|[^:/\s]+):(\d{1,5})((?:\/[A-Za-z0-9._~-]+)*)\/?$/;
const RECENT_OUTPUT_LINES = 20;

/** Reads the one line the server prints when it accepts connections. */
export function parseReadyLine(line: string): ServerAddress | null {
  const match = READY_LINE.exec(line.trim());
  if (!match) return null;
  const host = match[1]!.replace(/^\[(.*)\]$/, '$1');
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return null;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const basePath = match[3] ?? '';
  return { host, port, basePath, url: `http://${urlHost}:${port}${basePath}` };
}

/**
 * glibc gives each thread that allocates its own malloc arena (up to 8 per core) and keeps what they
 * freed; the server's threads (libuv's pool stat-ing a music folder for the watcher, the scan
 * worker) leave 35-45 MB that an idle server kept for good. Two arenas, measured with
 * `npm run bench:memory` (20,000 files): idle RSS after a scan 221 -> 187 MB, after 3,000 requests
 * 252 -> 216 MB. Linux only (glibc); a value set by the user wins.
 */
export const MALLOC_ARENAS = '2';

export function serverEnvironment(
  config: ServerLaunchConfig,
  baseEnv: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(baseEnv)) if (value !== undefined) env[key] = value;
  if (platform === 'linux' && env.MALLOC_ARENA_MAX === undefined) env.MALLOC_ARENA_MAX = MALLOC_ARENAS;
  env.TONEARM_PORT = String(config.port);
  env.TONEARM_HOST = config.host;
  env.TONEARM_DATA_DIR = config.dataDir;
  if (config.musicDirs.length > 0) env.TONEARM_MUSIC_DIRS = config.musicDirs.join(path.delimiter);
  else delete env.TONEARM_MUSIC_DIRS;
  if (config.uiDir) env.TONEARM_UI_DIR = config.uiDir;
  return env;
}

interface RunningChild {
  process: ServerProcess;
  exited: Promise<ProcessExit>;
  /** Set when the shell itself ends the process, so its exit is not a crash. */
  expected: boolean;
  ready: boolean;
  readyTimer: NodeJS.Timeout | undefined;
}

interface Waiter {
  resolve(address: ServerAddress): void;
  reject(error: ServerStartError): void;
}

/**
 * Keeps the server child alive: starts it, waits for its ready line, restarts it after a crash with
 * exponential back-off, gives up after too many crashes in a short time, and stops it on quit.
 */
export class ServerSupervisor extends EventEmitter<SupervisorEvents> {
  private readonly options: Required<Omit<SupervisorOptions, 'log' | 'baseEnv'>> &
    Pick<SupervisorOptions, 'log' | 'baseEnv'>;
  private child: RunningChild | null = null;
  private restartTimer: NodeJS.Timeout | undefined;
  private crashTimes: number[] = [];
  private recentOutput: string[] = [];
  private waiters: Waiter[] = [];
  private currentState: SupervisorState = 'idle';
  private currentAddress: ServerAddress | null = null;

  constructor(options: SupervisorOptions) {
    super();
    this.options = {
      args: [],
      readyTimeoutMs: 20_000,
      stopGraceMs: 5_000,
      restartDelayMs: { initial: 1_000, max: 30_000 },
      crashLimit: { crashes: 5, windowMs: 60_000 },
      now: Date.now,
      ...options,
    };
  }

  get state(): SupervisorState {
    return this.currentState;
  }

  /** Where the server listens, while it is running. */
  get address(): ServerAddress | null {
    return this.currentState === 'running' ? this.currentAddress : null;
  }

  get pid(): number | undefined {
    return this.child?.process.pid;
  }

  /** Resolves once the server prints its ready line; rejects with a ServerStartError. */
  start(): Promise<ServerAddress> {
    if (this.currentState === 'running' && this.currentAddress) return Promise.resolve(this.currentAddress);
    const ready = new Promise<ServerAddress>((resolve, reject) => this.waiters.push({ resolve, reject }));
    if (this.currentState !== 'starting' && this.currentState !== 'waiting-to-restart') {
      this.crashTimes = [];
      this.launch();
    }
    return ready;
  }

  /** SIGTERM, then SIGKILL once the grace period has passed. */
  async stop(): Promise<void> {
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    const child = this.child;
    if (child) {
      this.currentState = 'stopping';
      await this.terminate(child);
    }
    this.currentState = 'stopped';
    this.currentAddress = null;
    this.settleWaiters(new ServerStartError('stopped', 'The server was stopped before it was ready.'));
  }

  /** Used when settings that the server reads at start change. */
  async restart(): Promise<ServerAddress> {
    await this.stop();
    return this.start();
  }

  private launch(): void {
    this.currentState = 'starting';
    this.currentAddress = null;
    const env = serverEnvironment(this.options.config(), this.options.baseEnv);
    const serverProcess = this.options.launcher.fork(this.options.modulePath, this.options.args, { env });
    const child: RunningChild = {
      process: serverProcess,
      exited: new Promise((resolve) => serverProcess.onExit(resolve)),
      expected: false,
      ready: false,
      readyTimer: setTimeout(() => this.onReadyTimeout(child), this.options.readyTimeoutMs),
    };
    this.child = child;
    this.note(`starting server (pid ${serverProcess.pid ?? 'unknown'})`);
    serverProcess.onStdoutLine((line) => this.onOutput(child, 'out', line));
    serverProcess.onStderrLine((line) => this.onOutput(child, 'err', line));
    void child.exited.then((exit) => this.onExit(child, exit));
  }

  private onOutput(child: RunningChild, stream: 'out' | 'err', line: string): void {
    this.options.log?.append(`${this.timestamp()} ${stream} | ${line}`);
    this.recentOutput.push(line);
    if (this.recentOutput.length > RECENT_OUTPUT_LINES) this.recentOutput.shift();
    if (stream !== 'out' || child.ready || child.expected) return;
    const address = parseReadyLine(line);
    if (!address) {
      // A server that keeps reporting (a long database upgrade) is alive: the timeout counts from its last line.
      clearTimeout(child.readyTimer);
      child.readyTimer = setTimeout(() => this.onReadyTimeout(child), this.options.readyTimeoutMs);
      return;
    }
    child.ready = true;
    clearTimeout(child.readyTimer);
    this.currentState = 'running';
    this.currentAddress = address;
    this.emit('ready', address);
    for (const waiter of this.takeWaiters()) waiter.resolve(address);
  }

  private onReadyTimeout(child: RunningChild): void {
    if (child.ready || child.expected) return;
    const seconds = Math.round(this.options.readyTimeoutMs / 100) / 10;
    this.fail(
      child,
      new ServerStartError(
        'ready-timeout',
        `The Tonearm server did not report that it was ready within ${seconds} s.`,
        [...this.recentOutput],
      ),
    );
  }

  private onExit(child: RunningChild, exit: ProcessExit): void {
    clearTimeout(child.readyTimer);
    if (this.child === child) this.child = null;
    const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
    this.note(`server exited with ${how}${child.expected ? '' : ' (unexpected)'}`);
    this.emit('exited', { ...exit, expected: child.expected });
    if (child.expected) return;
    this.currentAddress = null;
    this.onCrash(child);
  }

  private onCrash(child: RunningChild): void {
    const now = this.options.now();
    const { crashes, windowMs } = this.options.crashLimit;
    this.crashTimes = [...this.crashTimes.filter((time) => now - time < windowMs), now];
    if (this.crashTimes.length >= crashes) {
      const minutes = windowMs >= 60_000 && windowMs % 60_000 === 0 ? windowMs / 60_000 : null;
      const within = minutes === 1 ? 'a minute' : minutes ? `${minutes} minutes` : `${windowMs} ms`;
      this.fail(
        child,
        new ServerStartError(
          'crash-loop',
          `The Tonearm server stopped unexpectedly ${this.crashTimes.length} times within ${within}; it will not be restarted.`,
          [...this.recentOutput],
        ),
      );
      return;
    }
    const { initial, max } = this.options.restartDelayMs;
    const delayMs = Math.min(initial * 2 ** (this.crashTimes.length - 1), max);
    this.currentState = 'waiting-to-restart';
    this.note(`restarting in ${delayMs} ms`);
    this.emit('restarting', { crashes: this.crashTimes.length, delayMs });
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      this.launch();
    }, delayMs);
  }

  private fail(child: RunningChild, error: ServerStartError): void {
    this.currentState = 'failed';
    this.currentAddress = null;
    this.note(error.message);
    if (this.child === child) void this.terminate(child);
    this.emit('failed', error);
    this.settleWaiters(error);
  }

  private async terminate(child: RunningChild): Promise<void> {
    child.expected = true;
    clearTimeout(child.readyTimer);
    child.process.kill('SIGTERM');
    const forceKill = setTimeout(() => {
      this.note(`server did not stop within ${this.options.stopGraceMs} ms; killing it`);
      child.process.kill('SIGKILL');
    }, this.options.stopGraceMs);
    await child.exited;
    clearTimeout(forceKill);
  }

  private settleWaiters(error: ServerStartError): void {
    for (const waiter of this.takeWaiters()) waiter.reject(error);
  }

  private takeWaiters(): Waiter[] {
    const waiters = this.waiters;
    this.waiters = [];
    return waiters;
  }

  private note(message: string): void {
    this.options.log?.append(`${this.timestamp()} shell | ${message}`);
  }

  private timestamp(): string {
    return new Date(this.options.now()).toISOString();
  }
}
