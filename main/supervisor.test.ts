import { fork, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RotatingLogFile } from './serverLog.js';
import { childProcessLauncher, SERVER_NODE_FLAGS, utilityProcessLauncher, type UtilityFork } from './serverProcess.js';
import {
  parseReadyLine,
  serverEnvironment,
  ServerStartError,
  ServerSupervisor,
  type ServerLaunchConfig,
  type SupervisorOptions,
} from './supervisor.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'test-fixtures');

let workDir: string;
let supervisors: ServerSupervisor[];

beforeEach(() => {
  workDir = mkdtempSync(path.join(tmpdir(), 'tonearm-supervisor-'));
  supervisors = [];
});

afterEach(async () => {
  await Promise.all(supervisors.map((supervisor) => supervisor.stop()));
  rmSync(workDir, { recursive: true, force: true });
});

function config(overrides: Partial<ServerLaunchConfig> = {}): ServerLaunchConfig {
  return { port: 4533, host: '127.0.0.1', dataDir: path.join(workDir, 'data'), musicDirs: [], ...overrides };
}

function supervise(
  fixture: string,
  options: Partial<SupervisorOptions> & { fixtureEnv?: Record<string, string> } = {},
): { supervisor: ServerSupervisor; log: RotatingLogFile } {
  const log = new RotatingLogFile({ directory: path.join(workDir, 'logs') });
  const { fixtureEnv, ...rest } = options;
  const supervisor = new ServerSupervisor({
    launcher: childProcessLauncher,
    modulePath: path.join(fixtures, fixture),
    config: () => config(),
    baseEnv: { PATH: process.env.PATH, ...fixtureEnv },
    log,
    restartDelayMs: { initial: 10, max: 1_000 },
    ...rest,
  });
  supervisors.push(supervisor);
  return { supervisor, log };
}

/** Log lines without their timestamps. */
function logLines(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /, ''));
}

function rejectionOf(promise: Promise<unknown>): Promise<ServerStartError> {
  return promise.then(
    () => {
      throw new Error('expected the promise to reject');
    },
    (error: ServerStartError) => error,
  );
}

describe('parseReadyLine', () => {
  it('reads host and port from the ready line', () => {
    expect(parseReadyLine('listening on http://0.0.0.0:3001')).toEqual({
      host: '0.0.0.0',
      port: 3001,
      basePath: '',
      url: 'http://0.0.0.0:3001',
    });
  });

  it('reads the base path the server is served under', () => {
    expect(parseReadyLine('listening on http://127.0.0.1:3001/music')).toEqual({
      host: '127.0.0.1',
      port: 3001,
      basePath: '/music',
      url: 'http://127.0.0.1:3001/music',
    });
  });

  it('accepts a bracketed IPv6 host and a trailing slash', () => {
    expect(parseReadyLine('listening on http://[::1]:8080/')).toEqual({
      host: '::1',
      port: 8080,
      basePath: '',
      url: 'http://[::1]:8080',
    });
  });

  it('ignores other output and impossible ports', () => {
    expect(parseReadyLine('server listening on http://127.0.0.1:3001')).toBeNull();
    expect(parseReadyLine('listening on https://127.0.0.1:3001')).toBeNull();
    expect(parseReadyLine('listening on http://127.0.0.1:70000')).toBeNull();
    expect(parseReadyLine('listening on http://127.0.0.1:0')).toBeNull();
  });
});

describe('serverEnvironment', () => {
  it('passes port, host, data folder, UI folder and music folders joined with the platform delimiter', () => {
    const env = serverEnvironment(config({ port: 0, musicDirs: ['/music/a', '/music/b'], uiDir: '/app/ui' }), {
      HOME: '/home/me',
    }, 'darwin');
    expect(env).toEqual({
      HOME: '/home/me',
      TONEARM_PORT: '0',
      TONEARM_HOST: '127.0.0.1',
      TONEARM_DATA_DIR: path.join(workDir, 'data'),
      TONEARM_MUSIC_DIRS: `/music/a${path.delimiter}/music/b`,
      TONEARM_UI_DIR: '/app/ui',
    });
  });

  it('limits glibc to two malloc arenas on Linux, unless the environment already says how many', () => {
    expect(serverEnvironment(config(), { HOME: '/home/me' }, 'linux').MALLOC_ARENA_MAX).toBe('2');
    expect(serverEnvironment(config(), { MALLOC_ARENA_MAX: '4' }, 'linux').MALLOC_ARENA_MAX).toBe('4');
    expect(serverEnvironment(config(), {}, 'win32').MALLOC_ARENA_MAX).toBeUndefined();
    expect(serverEnvironment(config(), {}, 'darwin').MALLOC_ARENA_MAX).toBeUndefined();
  });

  it('leaves out the music folders when there are none, even if inherited', () => {
    const env = serverEnvironment(config(), { TONEARM_MUSIC_DIRS: '/old' });
    expect(env.TONEARM_MUSIC_DIRS).toBeUndefined();
  });
});

describe('ServerSupervisor', () => {
  it('starts the server with its configuration and resolves with the address from the ready line', async () => {
    const { supervisor, log } = supervise('ready-server.mjs', {
      config: () => config({ port: 0, host: '0.0.0.0', musicDirs: ['/music/a', '/music/b'] }),
    });
    const readyEvents: unknown[] = [];
    supervisor.on('ready', (address) => readyEvents.push(address));

    const address = await supervisor.start();

    const expected = { host: '0.0.0.0', port: 43210, basePath: '', url: 'http://0.0.0.0:43210' };
    expect(address).toEqual(expected);
    expect(readyEvents).toEqual([expected]);
    expect(supervisor.state).toBe('running');
    expect(supervisor.address).toEqual(expected);
    await supervisor.stop(); // the exit is reported after both pipes have drained into the log
    const lines = logLines(log.path);
    expect(lines).toContain(`out | data dir ${path.join(workDir, 'data')}`);
    expect(lines).toContain(`out | music dirs /music/a${path.delimiter}/music/b`);
    expect(lines).toContain('err | a warning on stderr');
    expect(lines).toContain('out | listening on http://0.0.0.0:43210');
  });

  it('reports a clear error and kills the server when no ready line comes within the timeout', async () => {
    // Long enough for Node to start and print under load; the fixture then stays silent.
    const { supervisor } = supervise('silent-server.mjs', { readyTimeoutMs: 1500 });
    const exited = once(supervisor, 'exited');
    const failed = once(supervisor, 'failed');

    const error = await rejectionOf(supervisor.start());

    expect(error).toBeInstanceOf(ServerStartError);
    expect(error.reason).toBe('ready-timeout');
    expect(error.message).toBe('The Tonearm server did not report that it was ready within 1.5 s.');
    expect(error.recentOutput).toEqual(['opening database']);
    expect((await failed)[0]).toBe(error);
    expect(supervisor.state).toBe('failed');
    expect((await exited)[0]).toEqual({ code: 0, signal: null, expected: true });
  });

  it('keeps waiting while the server reports progress (a long database upgrade), counting from its last line', async () => {
    // 2.5 s of upgrade against a 1 s timeout.
    const { supervisor } = supervise('upgrading-server.mjs', { readyTimeoutMs: 1000 });
    expect(await supervisor.start()).toEqual({ host: '127.0.0.1', port: 43211, basePath: '', url: 'http://127.0.0.1:43211' });
    await supervisor.stop();
  });

  it('restarts a crashed server with exponential back-off until it comes up', async () => {
    const counterFile = path.join(workDir, 'starts');
    const { supervisor } = supervise('flaky-server.mjs', {
      restartDelayMs: { initial: 50, max: 1_000 },
      fixtureEnv: { FIXTURE_COUNTER_FILE: counterFile, FIXTURE_CRASHES: '3' },
    });
    const restarts: unknown[] = [];
    supervisor.on('restarting', (restart) => restarts.push(restart));
    const started = Date.now();

    const address = await supervisor.start();

    expect(address.port).toBe(4533);
    expect(restarts).toEqual([
      { crashes: 1, delayMs: 50 },
      { crashes: 2, delayMs: 100 },
      { crashes: 3, delayMs: 200 },
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    expect(readFileSync(counterFile, 'utf8')).toBe('4');
  });

  it('caps the back-off delay at its maximum', async () => {
    const { supervisor } = supervise('flaky-server.mjs', {
      restartDelayMs: { initial: 10, max: 25 },
      fixtureEnv: { FIXTURE_COUNTER_FILE: path.join(workDir, 'starts'), FIXTURE_CRASHES: '3' },
    });
    const delays: number[] = [];
    supervisor.on('restarting', ({ delayMs }) => delays.push(delayMs));

    await supervisor.start();

    expect(delays).toEqual([10, 20, 25]);
  });

  it('gives up with an error after 5 crashes within a minute', async () => {
    const { supervisor, log } = supervise('crashing-server.mjs');
    const delays: number[] = [];
    supervisor.on('restarting', ({ delayMs }) => delays.push(delayMs));
    const failed = once(supervisor, 'failed');

    const error = await rejectionOf(supervisor.start());

    expect(error.reason).toBe('crash-loop');
    expect(error.message).toBe(
      'The Tonearm server stopped unexpectedly 5 times within a minute; it will not be restarted.',
    );
    expect(error.recentOutput.at(-1)).toBe('fatal: cannot open database');
    expect((await failed)[0]).toBe(error);
    expect(delays).toEqual([10, 20, 40, 80]);
    expect(supervisor.state).toBe('failed');
    expect(logLines(log.path).filter((line) => line === 'err | fatal: cannot open database')).toHaveLength(5);
    expect(logLines(log.path)).toContain('shell | server exited with code 3 (unexpected)');
  });

  it('keeps restarting when the crashes are spread over more than a minute', async () => {
    let clock = 1_000_000;
    const { supervisor } = supervise('flaky-server.mjs', {
      now: () => clock,
      fixtureEnv: { FIXTURE_COUNTER_FILE: path.join(workDir, 'starts'), FIXTURE_CRASHES: '6' },
    });
    supervisor.on('exited', () => (clock += 30_000));
    const restarts: unknown[] = [];
    supervisor.on('restarting', (restart) => restarts.push(restart));

    await supervisor.start();

    expect(restarts).toEqual([
      { crashes: 1, delayMs: 10 },
      { crashes: 2, delayMs: 20 },
      { crashes: 2, delayMs: 20 },
      { crashes: 2, delayMs: 20 },
      { crashes: 2, delayMs: 20 },
      { crashes: 2, delayMs: 20 },
    ]);
  });

  it('stops the server with SIGTERM and lets it exit cleanly', async () => {
    const { supervisor, log } = supervise('ready-server.mjs');
    await supervisor.start();
    const exited = once(supervisor, 'exited');

    await supervisor.stop();

    expect((await exited)[0]).toEqual({ code: 0, signal: null, expected: true });
    expect(supervisor.state).toBe('stopped');
    expect(supervisor.address).toBeNull();
    expect(logLines(log.path)).toContain('out | closing on SIGTERM');
  });

  it('kills a server that ignores SIGTERM once the grace period has passed', async () => {
    const { supervisor, log } = supervise('stubborn-server.mjs', { stopGraceMs: 300 });
    await supervisor.start();
    const exited = once(supervisor, 'exited');
    const started = Date.now();

    await supervisor.stop();

    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect((await exited)[0]).toEqual({ code: null, signal: 'SIGKILL', expected: true });
    const lines = logLines(log.path);
    expect(lines).toContain('out | ignoring SIGTERM');
    expect(lines).toContain('shell | server did not stop within 300 ms; killing it');
  });

  it('cancels a pending restart when stopped during the back-off', async () => {
    const counterFile = path.join(workDir, 'starts');
    const { supervisor } = supervise('flaky-server.mjs', {
      restartDelayMs: { initial: 200, max: 1_000 },
      fixtureEnv: { FIXTURE_COUNTER_FILE: counterFile, FIXTURE_CRASHES: '10' },
    });
    const starting = rejectionOf(supervisor.start());
    await once(supervisor, 'restarting');

    await supervisor.stop();
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect((await starting).reason).toBe('stopped');
    expect(readFileSync(counterFile, 'utf8')).toBe('1');
    expect(supervisor.state).toBe('stopped');
  });

  it('restarts with the configuration read again', async () => {
    let port = 5001;
    const { supervisor } = supervise('ready-server.mjs', { config: () => config({ port }) });
    expect((await supervisor.start()).port).toBe(5001);

    port = 5002;
    const address = await supervisor.restart();

    expect(address).toEqual({ host: '127.0.0.1', port: 5002, basePath: '', url: 'http://127.0.0.1:5002' });
  });

  it('forwards the server output into a log that rotates by size', async () => {
    const directory = path.join(workDir, 'rotating');
    const log = new RotatingLogFile({ directory, maxBytes: 4_000, maxFiles: 3 });
    const { supervisor } = supervise('chatty-server.mjs', { log, fixtureEnv: { FIXTURE_LINES: '100' } });

    await supervisor.start();

    const files = log.files();
    expect(files.map((file) => path.basename(file))).toEqual(['server.log', 'server.1.log', 'server.2.log']);
    for (const file of files) expect(readFileSync(file).length).toBeLessThanOrEqual(4_000);
    const kept = files.reverse().flatMap(logLines);
    expect(kept.at(-1)).toBe('out | listening on http://127.0.0.1:4533');
    const numbers = kept.flatMap((line) => /^out \| line (\d{4}) /.exec(line)?.[1] ?? []).map(Number);
    // Each forwarded line is 122 bytes, so three 4000-byte files hold the last 97 lines or fewer.
    expect(numbers.at(-1)).toBe(100);
    expect(numbers[0]).toBeGreaterThan(1);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, index) => numbers[0]! + index));
  });
});

describe('utilityProcessLauncher', () => {
  /** Node's child process dressed as Electron's UtilityProcess, which is what this launcher drives. */
  const forkLikeUtilityProcess: UtilityFork = (modulePath, args, { env, execArgv }) => {
    const child = fork(modulePath, args, { env, execArgv, silent: true });
    return {
      pid: child.pid,
      stdout: child.stdout,
      stderr: child.stderr,
      once: (_event, listener) => child.once('exit', (code) => listener(code ?? -1)),
      kill: () => child.kill('SIGTERM'),
    };
  };

  it('drives the supervisor like the child-process launcher, forcing a kill through the pid', async () => {
    const { supervisor, log } = supervise('stubborn-server.mjs', {
      launcher: utilityProcessLauncher(forkLikeUtilityProcess),
      stopGraceMs: 200,
    });
    expect(await supervisor.start()).toEqual({ host: '127.0.0.1', port: 4533, basePath: '', url: 'http://127.0.0.1:4533' });
    const exited = once(supervisor, 'exited');

    await supervisor.stop();

    expect((await exited)[0]).toEqual({ code: -1, signal: null, expected: true });
    expect(logLines(log.path)).toContain('out | ignoring SIGTERM');
  });

  it('starts the server with the node flags npm start gives it', () => {
    const given: string[][] = [];
    const recording: UtilityFork = (_modulePath, _args, { execArgv }) => {
      given.push(execArgv);
      return { pid: undefined, stdout: null, stderr: null, once: () => undefined, kill: () => true };
    };
    utilityProcessLauncher(recording).fork('server.js', [], { env: {} });
    expect(given).toEqual([SERVER_NODE_FLAGS]);
    const npmStart = spawnSync(process.execPath, ['--input-type=module', '-e', "const m = await import('./scripts/start.mjs'); console.log(JSON.stringify(m.SERVER_NODE_FLAGS));"], { encoding: 'utf8' });
    expect(JSON.parse(npmStart.stdout)).toEqual(SERVER_NODE_FLAGS);
  });
});
