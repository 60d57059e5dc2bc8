// Upgrades its database for longer than the ready timeout, printing progress, then becomes ready.
let batches = 0;
console.log('database upgrade step started');
const timer = setInterval(() => {
  batches++;
  if (batches < 25) return void console.log(`database upgrade step progress ${batches}`);
  clearInterval(timer);
  console.log('listening on http://127.0.0.1:43211');
  setInterval(() => {}, 1000);
}, 100);
process.on('SIGTERM', () => process.exit(0));
