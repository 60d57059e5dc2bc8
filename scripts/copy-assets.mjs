// After tsc: copies the SQL migrations next to the compiled database module.
import fs from 'node:fs';
fs.mkdirSync('dist/server/db/migrations', { recursive: true });
for (const f of fs.readdirSync('server/db/migrations')) {
  if (f.endsWith('.sql')) fs.copyFileSync(`server/db/migrations/${f}`, `dist/server/db/migrations/${f}`);
}
