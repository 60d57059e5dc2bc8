// Writes FIXTURE_LINES numbered lines of output before the ready line, to fill and rotate the log.
const lines = Number(process.env.FIXTURE_LINES);
for (let index = 1; index <= lines; index++) console.log(`line ${String(index).padStart(4, '0')} ${'x'.repeat(80)}`);
process.on('SIGTERM', () => process.exit(0));
console.log(`listening on http://${process.env.TONEARM_HOST}:${process.env.TONEARM_PORT}`);
setInterval(() => {}, 1000);
