// The upstream the measured process calls: a keep-alive loopback server in its own process, answering a
// small JSON body. Prints `listening <port>` and runs until killed.
import http from 'node:http';

const body = JSON.stringify({ ok: true, items: [1, 2, 3], user: { name: 'ada', token: 'abc' } });
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
