// Behaves like the real server: reports its configuration, prints the ready line, stops on SIGTERM.
const port = process.env.TONEARM_PORT === '0' ? 43210 : process.env.TONEARM_PORT;
console.log(`data dir ${process.env.TONEARM_DATA_DIR}`);
console.log(`music dirs ${process.env.TONEARM_MUSIC_DIRS ?? '(none)'}`);
console.error('a warning on stderr');
// The handler is in place before the ready line, since the supervisor may stop us right after it.
process.on('SIGTERM', () => {
  console.log('closing on SIGTERM');
  process.exit(0);
});
console.log(`listening on http://${process.env.TONEARM_HOST}:${port}`);
setInterval(() => {}, 1000);
