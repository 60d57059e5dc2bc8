import { spawnSync } from 'node:child_process';
import { SERVER_NODE_FLAGS } from '../main/serverProcess.js';

/**
 * For a benchmark that runs the server in its own process: makes sure the process runs with npm
 * start's node flags and malloc setting (scripts/start.mjs), as users run the server. Started
 * without them, the benchmark runs itself again with them and this process exits with its status.
 */
export async function asNpmStart(): Promise<void> {
  const launcher = '../scripts/start.mjs';
  const { serverEnv } = (await import(launcher)) as { serverEnv(): NodeJS.ProcessEnv };
  const env = serverEnv();
  const missing = SERVER_NODE_FLAGS.some((flag) => !process.execArgv.includes(flag)) || env.MALLOC_ARENA_MAX !== process.env.MALLOC_ARENA_MAX;
  if (!missing) return;
  const run = spawnSync(process.execPath, [...SERVER_NODE_FLAGS, ...process.execArgv, process.argv[1]!, ...process.argv.slice(2)], { stdio: 'inherit', env });
  process.exit(run.status ?? 1);
}
