import { ConfigError, loadConfig } from './config.js';
import { DatabaseRefusedError } from './db/connection.js';
import { startServer } from './server.js';
import { startNotes } from './startNotes.js';

/** Entry point: config -> database -> app -> listen. Prints the ready line the desktop shell waits for. */
async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`tonearm: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  let server;
  try {
    server = await startServer({ config });
  } catch (err) {
    if (err instanceof DatabaseRefusedError) {
      process.stderr.write(`tonearm: ${err.message}\n`);
      process.exit(3);
    }
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') {
      process.stderr.write(`tonearm: port ${config.port} on ${config.host} is already in use; set TONEARM_PORT to another port\n`);
      process.exit(4);
    }
    throw err;
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.ctx.log.info('shutting down', { signal });
    const hardStop = setTimeout(() => process.exit(1), 4500);
    hardStop.unref();
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // Printed only once signals are handled: a supervisor may stop us right after reading it.
  process.stdout.write(`listening on ${server.url}\n`);
  // After the ready line, never instead of it: the desktop supervisor parses that line as it is.
  for (const line of startNotes({ url: server.url, host: config.host, onboarded: server.ctx.auth.isOnboarded() })) process.stdout.write(`${line}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`tonearm: failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
