import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { REPO_ROOT } from './app';

export interface Upstream {
  url: string;
  port: number;
  /** Requests received, with their headers as the wire had them. */
  received: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; rawHeaders: string[] }>;
  close(): Promise<void>;
}

/** A self-signed certificate for localhost/127.0.0.1, made once with openssl and reused. */
export function testCertificate(): { key: Buffer; cert: Buffer; certFile: string } {
  const dir = path.join(REPO_ROOT, '.cache', 'tls');
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  if (!existsSync(certFile)) {
    // Made in a folder of this process's own, then renamed into place whole: test files run in parallel, and a
    // key of one process beside a certificate of another (or a CA file read between two writes) fails TLS.
    const staging = `${dir}.${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        path.join(staging, 'key.pem'),
        '-out',
        path.join(staging, 'cert.pem'),
        '-days',
        '3650',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-addext',
        'basicConstraints=critical,CA:TRUE',
      ],
      { stdio: 'ignore' },
    );
    try {
      renameSync(staging, dir);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another process made it first: theirs stands
    }
  }
  return { key: readFileSync(keyFile), cert: readFileSync(certFile), certFile };
}

const JSON_BODY = { ok: true, token: 'upstream-secret-token', items: [1, 2, 3], user: { name: 'ada', password: 'hunter2' } };

function bytes(n: number): Buffer {
  const out = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) out[i] = (i * 31 + 7) & 0xff;
  return out;
}

/** The routes every test upstream serves. */
export function upstreamHandler(received: Upstream['received']): http.RequestListener {
  return (req, res) => {
    received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawHeaders: req.rawHeaders });
    const url = new URL(req.url ?? '/', 'http://x');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const route = url.pathname;
      const json = (status: number, value: unknown, headers: http.OutgoingHttpHeaders = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(value));
      };
      if (route === '/json') return json(200, JSON_BODY, { 'set-cookie': 'session=abc123; HttpOnly', 'x-request-id': 'r-1' });
      if (route === '/text') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('hello from upstream');
      }
      if (route === '/html') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<script>window.__pwned = true</script><img src=x onerror="window.__pwned=true">');
      }
      if (route === '/headers') return json(200, { headers: req.headers, rawHeaders: req.rawHeaders });
      const status = route.match(/^\/status\/(\d{3})$/);
      if (status) return json(Number(status[1]), { error: `status ${status[1]}` });
      const redirect = route.match(/^\/redirect\/(\d+)$/);
      if (redirect) {
        const left = Number(redirect[1]);
        res.writeHead(302, { location: left > 1 ? `/redirect/${left - 1}` : '/json' });
        return res.end();
      }
      if (route === '/big') {
        const size = Number(url.searchParams.get('bytes') ?? 3 * 1024 * 1024);
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size });
        return res.end(bytes(size));
      }
      if (route === '/gzip' || route === '/br' || route === '/deflate') {
        const raw = Buffer.from(JSON.stringify(JSON_BODY));
        const encoded = route === '/gzip' ? zlib.gzipSync(raw) : route === '/br' ? zlib.brotliCompressSync(raw) : zlib.deflateSync(raw);
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': route.slice(1) });
        return res.end(encoded);
      }
      if (route === '/echo') {
        res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/octet-stream' });
        return res.end(body);
      }
      if (route === '/binary') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0xc3, 0x28, 0x7d]));
      }
      if (route === '/invalid-json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{"not": json');
      }
      if (route === '/slow') {
        const ms = Number(url.searchParams.get('ms') ?? 200);
        return setTimeout(() => json(200, { slept: ms }), ms);
      }
      if (route === '/hang') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial');
        return; // never ends
      }
      if (route === '/graphql') return json(200, { data: { viewer: { login: 'ada' } } });
      json(404, { error: 'not found', route });
    });
  };
}

async function listen(server: http.Server | https.Server, scheme: 'http' | 'https'): Promise<Upstream & { server: typeof server }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return {
    server,
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    received: [],
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export async function startUpstream(): Promise<Upstream> {
  const received: Upstream['received'] = [];
  const server = http.createServer(upstreamHandler(received));
  const up = await listen(server, 'http');
  return Object.assign(up, { received });
}

export async function startHttpsUpstream(): Promise<Upstream & { certFile: string }> {
  const received: Upstream['received'] = [];
  const { key, cert, certFile } = testCertificate();
  const server = https.createServer({ key, cert }, upstreamHandler(received));
  const up = await listen(server, 'https');
  return Object.assign(up, { received, certFile, url: `https://localhost:${up.port}` });
}

/** The plainest upstream: answers `ok` to every request, on a loopback port of its own (`url` ends with `/`). */
export async function startOkServer(): Promise<{ url: string; close(): void }> {
  const server = http.createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() };
}
