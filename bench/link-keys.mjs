#!/usr/bin/env node
// Benchmark: what linking calls across services costs on the app's thread. Per call Probe reads the connection's two
// `address:port`s (Node keeps them once read) and counts the request on its connection: measured here on a real
// connected loopback socket, against one keep-alive node:http call measured in the same run, on the same machine.
// Also the store's side (off the app's thread: the store's thread writes, the CLI reads): a capture's link notes
// written and read in the file store. Prints CPU µs per operation (median of the rounds) and the ratio.
// Usage: node --import tsx bench/link-keys.mjs [--rounds 7] [--calls 2000]
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { machine, table } from './lib/common.mjs';
import { connectionOf, takeTurn, countIncoming, requestConnection } from '../src/runtime/connections.ts';
import { FileLinks } from '../src/flows/FileLinks.ts';
import { notesOf } from '../src/flows/linkNotes.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '7' }, calls: { type: 'string', default: '2000' } } });
const rounds = Number(values.rounds);
const calls = Number(values.calls);
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const cpuMicros = (run, times) => {
  const start = process.cpuUsage();
  run(times);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / times;
};

const server = http.createServer((_req, res) => res.end('ok'));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/`;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const get = () =>
  new Promise((resolve, reject) => {
    const request = http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(request.socket));
    });
    request.on('error', reject);
  });
const socket = await get();

async function callMicros() {
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) await get();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls;
}

const request = {};
const keys = [];
const callRounds = [];
const keyRounds = [];
for (let r = 0; r < rounds; r++) {
  callRounds.push(await callMicros());
  // Both ends' work for one call: the client's key and the server's count and key.
  keyRounds.push(
    cpuMicros((times) => {
      for (let i = 0; i < times; i++) {
        keys.push(connectionOf(socket, takeTurn(socket)));
        countIncoming(request, socket);
        keys.push(requestConnection(request, socket));
        if (keys.length > 1000) keys.length = 0;
      }
    }, 200_000),
  );
}

// The store's side: a capture with 3 linked calls and a request, its notes written and looked up.
const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-bench-links-'));
const links = new FileLinks(path.join(dir, 'links'));
const capture = (n) => ({
  id: `bench${String(n).padStart(10, '0')}`,
  started_at: Date.now() / 1000,
  duration: 50,
  sections: {
    request: { headers: {}, connection: { local: '127.0.0.1:3000', remote: `127.0.0.1:${40000 + (n % 20000)}`, order: n } },
    http: [0, 1, 2].map((i) => ({
      time: i * 10,
      duration: 9,
      request_headers: {},
      connection: { local: `127.0.0.1:${30000 + i}`, remote: '127.0.0.1:4000', order: n },
    })),
  },
});
const writeRounds = [];
const readRounds = [];
let n = 0;
for (let r = 0; r < rounds; r++) {
  writeRounds.push(
    cpuMicros((times) => {
      for (let i = 0; i < times; i++) links.note(notesOf(capture(n++)));
    }, 300),
  );
  const start = process.cpuUsage();
  for (let i = 0; i < 300; i++) await links.read(notesOf(capture(n - 1 - i)).map((note) => note.key));
  const used = process.cpuUsage(start);
  readRounds.push((used.user + used.system) / 300);
}
rmSync(dir, { recursive: true, force: true });
agent.destroy();
server.close();

const call = median(callRounds);
const key = median(keyRounds);
console.log(machine());
console.log(
  table(
    ['what', 'CPU µs', 'vs one keep-alive call'],
    [
      ['one keep-alive node:http call (client and server, no Probe)', call.toFixed(1), '1'],
      ['link keys of one call, both ends (app thread)', key.toFixed(3), `${((key / call) * 100).toFixed(2)} %`],
      ["a capture's link notes written, 4 keys (store thread)", median(writeRounds).toFixed(1), ''],
      ["a capture's links read, 4 keys (reader)", median(readRounds).toFixed(1), ''],
    ],
  ),
);
