// Crashes the first FIXTURE_CRASHES times it is started (counted in FIXTURE_COUNTER_FILE), then serves.
import { readFileSync, writeFileSync } from 'node:fs';

const counterFile = process.env.FIXTURE_COUNTER_FILE;
let starts = 0;
try {
  starts = Number(readFileSync(counterFile, 'utf8'));
} catch {}
writeFileSync(counterFile, String(starts + 1));
if (starts < Number(process.env.FIXTURE_CRASHES)) {
  console.error(`crash number ${starts + 1}`);
  process.exit(1);
}
process.on('SIGTERM', () => process.exit(0));
console.log(`listening on http://${process.env.TONEARM_HOST}:${process.env.TONEARM_PORT}`);
setInterval(() => {}, 1000);
