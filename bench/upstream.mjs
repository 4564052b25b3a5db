// The upstream the measured process calls: a keep-alive loopback server in its own process. It answers a small
// JSON body, or with BENCH_ANSWER_BYTES a JSON page of records of about that size (no secret-named field in the
// records: a list of orders, as most API pages are). With BENCH_KEEPALIVE_MS its idle keep-alive sockets close after
// that long (Node's default is 5000; 60 s otherwise, so no bench but bench/crowd.mjs meets a close). Prints
// `listening <port>` and runs until killed.
import http from 'node:http';
import { answerOf } from './lib/answer.mjs';

const body = answerOf(Number(process.env.BENCH_ANSWER_BYTES) || 0);
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = Number(process.env.BENCH_KEEPALIVE_MS) || 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
