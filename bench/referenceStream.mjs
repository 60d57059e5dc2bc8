// The reference for streaming (issue 25): the smallest Node server that sends one file, read in
// 1 MiB chunks and piped to the response. bench/streaming.ts runs it beside Tonearm on the same file.
import fs from 'node:fs';
import http from 'node:http';

const file = process.argv[2];
const size = fs.statSync(file).size;
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size });
  fs.createReadStream(file, { highWaterMark: 1024 * 1024 }).pipe(res);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
