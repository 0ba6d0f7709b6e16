// Baseline for the benchmark: the smallest possible node:http JSON endpoint.
import { createServer } from 'node:http';

const body = JSON.stringify({ status: 'ok' });
const server = createServer((_req, res) => {
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.send?.('listening');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
