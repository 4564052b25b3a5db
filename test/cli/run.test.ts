import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { collect, eventually, REPO_ROOT, TestApp } from '../helpers/app';
import type { HttpRow } from '../../src/capture/types';
import { startChild } from '../helpers/child';

const CLI = path.join(REPO_ROOT, 'dist', 'cli', 'main.js');

/** An app that says it is ready, ends on a line of input, and tells which signal reached it before re-raising it. */
const WAITER = `
process.once('SIGTERM', () => { console.log('child got SIGTERM'); process.kill(process.pid, 'SIGTERM'); });
process.stdin.setEncoding('utf8').once('data', (line) => { console.log('child read ' + line.trim()); process.exit(0); });
setInterval(() => {}, 1000);
console.log('ready');
`;

/** `probe run` in the app folder, in its own process group so that every process under it is ended with it. */
function probeRun(app: TestApp, args: string[], env: Record<string, string> = {}): ChildProcess {
  return startChild(process.execPath, [CLI, 'run', ...args], {
    cwd: app.dir,
    env: app.env({ preload: 'none', env }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The text of stdout or stderr so far, and a wait for a pattern in it (fails with both streams). */
function watch(child: ChildProcess): { text: { out: string; err: string }; waitFor(stream: 'out' | 'err', pattern: RegExp): Promise<RegExpMatchArray> } {
  const text = { out: '', err: '' };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (text.out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (text.err += chunk));
  return {
    text,
    waitFor: (stream, pattern) =>
      eventually(
        () =>
          text[stream].match(pattern) ??
          (child.exitCode !== null ? Promise.reject(new Error(`exited ${child.exitCode}\n${text.out}\n${text.err}`)) : undefined),
        60_000,
      ).catch((error: Error) => Promise.reject(new Error(`${error.message}\nno ${pattern} on std${stream}\nstdout: ${text.out}\nstderr: ${text.err}`))),
  };
}

describe('probe run -- <command>', { timeout: 240_000 }, () => {
  const started: ChildProcess[] = [];
  let upstream: http.Server;
  let upstreamUrl: string;

  before(async () => {
    upstream = http.createServer((_req, res) => res.setHeader('content-type', 'application/json').end('{"ok":true}'));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  after(() => {
    for (const child of started) killGroup(child);
    upstream.close();
  });

  it("exits with the command's exit code", async () => {
    const app = new TestApp({ 'exit.js': 'process.exitCode = 3;' });
    const child = probeRun(app, ['--no-dashboard', '--', process.execPath, 'exit.js']);
    started.push(child);
    const result = await collect(child, 60_000);
    assert.equal(result.code, 3, result.stderr);
  });

  it('passes SIGTERM to the command and ends by it', async () => {
    const app = new TestApp({ 'waiter.js': WAITER });
    const child = probeRun(app, ['--no-dashboard', '--', process.execPath, 'waiter.js']);
    started.push(child);
    const seen = watch(child);
    const ended = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
    await seen.waitFor('out', /ready/);
    child.kill('SIGTERM');
    const [code, signal] = await ended;
    assert.match(seen.text.out, /child got SIGTERM/);
    assert.deepEqual([code, signal], [null, 'SIGTERM'], seen.text.err);
  });

  it('records a Node process an npm script starts (NODE_OPTIONS reaches grandchildren)', async () => {
    const app = new TestApp({
      'call.js': `fetch(process.env.UPSTREAM + '/from-npm-script').then((r) => r.json()).then((body) => console.log('called', body.ok));`,
    });
    app.write('package.json', JSON.stringify({ name: 'run-app', version: '1.0.0', private: true, scripts: { call: 'node call.js' } }));
    const child = probeRun(app, ['--no-dashboard', '--', 'npm', 'run', '--silent', 'call'], { UPSTREAM: upstreamUrl });
    started.push(child);
    const result = await collect(child, 120_000);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /called true/);
    const rows = app.captures().flatMap((c) => (c.sections.http as HttpRow[] | undefined) ?? []);
    assert.deepEqual(
      rows.map((row) => row.url),
      [`${upstreamUrl}/from-npm-script`],
    );
    assert.equal(rows[0]!.origin?.file, 'call.js');
    // npm itself only launched the script: no capture of its own (see Launchers in the README).
    assert.deepEqual(
      app.captures().map((c) => c.name),
      ['call.js'],
    );
  });

  it('prints the dashboard URL once, serves it while the command runs, passes stdin through, and stops with it', async () => {
    const app = new TestApp({ 'waiter.js': WAITER });
    const child = probeRun(app, ['--port', '0', '--', process.execPath, 'waiter.js']);
    started.push(child);
    const seen = watch(child);
    const ended = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const [, url] = (await seen.waitFor('err', /Probe dashboard: (http:\/\/127\.0\.0\.1:\d+\/)/)) as [string, string];
    await seen.waitFor('out', /ready/);
    const page = await fetch(url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<html/i);
    child.stdin!.end('bye\n');
    assert.equal(await ended, 0, seen.text.err);
    assert.match(seen.text.out, /child read bye/);
    assert.equal(seen.text.err.match(/Probe dashboard:/g)?.length, 1, seen.text.err);
    await assert.rejects(fetch(url), 'the dashboard stops with the command');
  });
});
