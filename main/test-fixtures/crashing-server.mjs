// Dies at once, as the server does when its data folder is unusable.
console.error('fatal: cannot open database');
process.exit(3);
