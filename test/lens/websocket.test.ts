import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { HttpRow } from '../../src/capture/types';
import { TestApp } from '../helpers/app';
import { installPinned } from '../helpers/pinned';

/**
 * A WebSocket handshake is an HTTP call answered `101 Switching Protocols`: a row with that status, not a failure.
 * A server that refuses the upgrade (403) is a failed row with its status. The `ws` package's client (over
 * node:http) and undici's WebSocket (Node's global `WebSocket` from Node 22, the same code) against a real `ws`
 * server on loopback, each exchanging a message before it closes.
 */
const CACHE = process.env.PROBE_UNITS_NET_CACHE ?? path.join(os.homedir(), '.cache', 'probe-units-net');
const WS_VERSION = '8.18.3';

const APP = `
const url = process.env.WS_URL;
const clients = {
  ws: () => require(process.env.WS_PATH),
  undici: () => require('undici').WebSocket,
  global: () => globalThis.WebSocket,
};
const Client = clients[process.env.CLIENT]();
function talk(path) {
  return new Promise((resolve) => {
    const socket = new Client(url + path);
    const on = (name, fn) => (socket.on ? socket.on(name, fn) : socket.addEventListener(name, fn));
    on('open', () => socket.send('hello'));
    on('message', (event) => {
      console.log('echo ' + String(event && event.data !== undefined ? event.data : event));
      socket.close();
    });
    on('error', () => console.log('refused ' + path));
    on('close', () => resolve());
  });
}
talk('/ok').then(() => talk('/deny'));
`;

describe('WebSocket handshakes', () => {
  let server: http.Server;
  let url = '';
  let wsPath = '';
  before(async () => {
    const dir = await installPinned({
      dir: path.join(CACHE, `ws-${WS_VERSION}`),
      package: { name: 'ws-server', dependencies: { ws: WS_VERSION } },
      probe: false,
    });
    wsPath = path.join(dir, 'node_modules', 'ws');
    const { WebSocketServer } = createRequire(path.join(dir, 'package.json'))('ws') as {
      WebSocketServer: new (options: { noServer: true }) => {
        handleUpgrade(
          req: http.IncomingMessage,
          socket: Duplex,
          head: Buffer,
          done: (ws: { on(e: string, f: (data: Buffer) => void): void; send(d: string): void }) => void,
        ): void;
      };
    };
    const wss = new WebSocketServer({ noServer: true });
    server = http.createServer((_req, res) => res.end('plain'));
    server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      if (req.url === '/deny') {
        socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => ws.on('message', (data) => ws.send(String(data))));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.closeAllConnections?.() ?? server.close());

  for (const client of ['ws', 'undici', 'global'] as const) {
    const skip = client === 'global' && typeof (globalThis as { WebSocket?: unknown }).WebSocket !== 'function' ? 'no global WebSocket on this Node' : false;
    it(
      `${client === 'ws' ? 'the ws package' : client === 'undici' ? "undici's WebSocket" : 'the global WebSocket'}: 101 is a call that succeeded, 403 one that failed`,
      { skip },
      async () => {
        const app = new TestApp({ 'app.cjs': APP });
        const env = { WS_URL: url, WS_PATH: wsPath, CLIENT: client };
        const baseline = await app.run('app.cjs', { preload: 'none', env });
        const result = await app.run('app.cjs', { env });
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.stdout, baseline.stdout, 'the app says the same with Probe');
        assert.match(result.stdout, /echo hello\nrefused \/deny/);
        const capture = app.captures().find((c) => c.type === 'command');
        const rows = (capture?.sections.http ?? []) as HttpRow[];
        const byPath = (p: string) => rows.filter((row) => new URL(row.url).pathname === p);
        assert.equal(byPath('/ok').length, 1, JSON.stringify(rows.map((r) => [r.url, r.status])));
        assert.equal(byPath('/deny').length, 1, JSON.stringify(rows.map((r) => [r.url, r.status])));
        const [ok] = byPath('/ok');
        assert.equal(ok!.status, 101);
        assert.equal(ok!.failed, false);
        assert.equal(ok!.exception, null);
        assert.equal(ok!.origin?.file, 'app.cjs');
        const [deny] = byPath('/deny');
        assert.equal(deny!.status, 403);
        assert.equal(deny!.failed, true);
        assert.equal(capture!.summary.totals?.http_failed, 1);
      },
    );
  }
});
