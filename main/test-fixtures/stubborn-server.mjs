// Ready, but ignores SIGTERM, so only a forced kill ends it.
process.on('SIGTERM', () => console.log('ignoring SIGTERM'));
console.log(`listening on http://${process.env.TONEARM_HOST}:${process.env.TONEARM_PORT}`);
setInterval(() => {}, 1000);
