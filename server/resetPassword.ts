import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from './config.js';
import { DatabaseRefusedError, inTransaction, openDatabase } from './db/connection.js';
import { sessionsRepository } from './db/sessions.js';
import { usersRepository } from './db/users.js';
import { NotFoundError } from './domain/errors.js';
import { UsersService } from './domain/users/service.js';
import { loadSecrets } from './secrets.js';

/**
 * `npm run reset-password -- <username>` (or `--admin`: the oldest active administrator): a way back
 * in after a lost password. Works on the data folder (TONEARM_DATA_DIR) whether the server runs or
 * not: SQLite lets both write, and the server reads sessions and passwords from the database on
 * every request. Prints exactly one line on stdout, `one-time password: <password>`; the rest goes to
 * stderr. Exit codes: 0 done, 1 no such user, 2 usage or configuration, 3 no usable database.
 */
const USAGE = 'usage: npm run reset-password -- <username>   (or --admin for the first administrator)';

function fail(code: number, message: string): never {
  process.stderr.write(`tonearm: ${message}\n`);
  process.exit(code);
}

async function main() {
  const target = process.argv[2];
  if (!target || target === '--help' || target === '-h' || process.argv.length > 3) fail(2, USAGE);
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(2, err.message);
    throw err;
  }
  const file = path.join(config.dataDir, 'tonearm.db');
  // Never create a database here: a wrong TONEARM_DATA_DIR must not look like an empty installation.
  if (!fs.existsSync(file))
    fail(3, `no Tonearm database in ${config.dataDir}; set TONEARM_DATA_DIR to the server's data folder`);
  let db;
  try {
    db = openDatabase(file);
  } catch (err) {
    if (err instanceof DatabaseRefusedError) fail(3, err.message);
    throw err;
  }
  try {
    const secrets = loadSecrets(config.dataDir);
    const repo = usersRepository(db);
    const users = new UsersService(repo, sessionsRepository(db), secrets.encryptionKey, { now: () => Date.now() }, (fn) =>
      inTransaction(db, fn),
    );
    let username = target;
    if (target === '--admin') {
      const admin = repo.list().find((u) => u.role === 'admin' && u.status === 'active');
      if (!admin) fail(1, 'this installation has no active administrator yet; finish onboarding in the web UI');
      username = admin.username;
    }
    const { user, password } = await users.resetWithOneTimePassword(username).catch((err: unknown) => {
      if (err instanceof NotFoundError) fail(1, `${err.error}; the names are listed in Settings → Users`);
      throw err;
    });
    process.stdout.write(`one-time password: ${password}\n`);
    process.stderr.write(
      `Every session of "${user.username}" has ended. Sign in as "${user.username}" with this password once; ` +
        'you will then be asked to choose a new one.\n',
    );
  } finally {
    db.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`tonearm: reset-password failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
