#!/usr/bin/env node
// Rule "sql-only-in-db" of shared/design/architecture.md: server/db/ is the only place with SQL. Fails
// (exit 1) naming each file outside server/db/ that prepares or runs a statement on the database.
// dependency-cruiser (.dependency-cruiser.cjs) checks the imports; this checks what imports cannot show.
// Usage: node scripts/check-sql.mjs [root]   (root defaults to the working directory)
import fs from 'node:fs';
import path from 'node:path';

// A statement prepared or run on a connection: db.prepare(…), statement(…) (db/statements.ts), db.exec(…).
// No exceptions and no allow list: a file outside server/db/ that needs SQL calls a repository there.
const SQL_CALL = /\.prepare\(|\bstatement\(|\bdb\s*\.exec\(/g;

const root = path.resolve(process.argv[2] ?? '.');
const offenders = [];

function walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') walk(full);
      continue;
    }
    if (!/\.(ts|mts|cts|js|mjs)$/.test(entry.name) || /\.test\.[mc]?[tj]s$/.test(entry.name)) continue;
    const rel = path.relative(root, full).split(path.sep).join('/');
    if (rel.startsWith('server/db/')) continue;
    const text = fs.readFileSync(full, 'utf8');
    const hits = [...text.matchAll(SQL_CALL)].map((m) => text.slice(0, m.index).split('\n').length);
    if (hits.length > 0) offenders.push(`${rel}:${hits.join(',')}`);
  }
}

for (const top of ['server', 'main']) if (fs.existsSync(path.join(root, top))) walk(path.join(root, top));

if (offenders.length > 0) {
  for (const o of offenders) console.error(`  error sql-only-in-db: ${o}`);
  console.error('    server/db/ is the only place with SQL: move the statement into a repository there and call it (architecture.md)');
  console.error(`\nx ${offenders.length} file(s) with SQL outside server/db/`);
  process.exit(1);
}
console.log('✔ no SQL outside server/db/');
