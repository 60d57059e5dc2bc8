// Before `npm start`: builds the web UI when renderer/dist is missing or older than its sources,
// so a fresh clone serves the UI at / without a separate build step.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = 'renderer';
const index = path.join(root, 'dist', 'index.html');
if (!fs.existsSync(path.join(root, 'index.html'))) process.exit(0);

function newest(dir) {
  let latest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : fs.statSync(full).mtimeMs);
  }
  return latest;
}

if (fs.existsSync(index) && fs.statSync(index).mtimeMs >= newest(root)) process.exit(0);
console.error('[tonearm] building the web UI (first start or changed sources)...');
const r = spawnSync('npx', ['vite', 'build', root, '--logLevel', 'warn'], { stdio: 'inherit' });
process.exit(r.status ?? 1);
