// Starts but never prints the ready line.
console.log('opening database');
process.on('SIGTERM', () => process.exit(0));
setInterval(() => {}, 1000);
