import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startChild } from './child';

/**
 * A real `redis-server` (Debian package) on a free loopback port in a temp folder, without persistence,
 * that tests can stop, restart on the same port, kill -9, and freeze (SIGSTOP: a Redis that accepts
 * connections and never answers).
 */
export class RedisServer {
  readonly dir: string;
  private child: ChildProcess | null = null;

  private constructor(readonly port: number) {
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'probe-redis-'));
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<RedisServer> {
    for (let attempt = 0; ; attempt++) {
      const server = new RedisServer(await freePort());
      try {
        await server.start();
        return server;
      } catch (error) {
        if (attempt >= 4) throw error; // the port was taken between probing and binding
      }
    }
  }

  /** Starts (again) on the same port. */
  async start(): Promise<void> {
    if (this.child) return;
    // `file`: a server outlives the test that restarts it; it is killed when the file's tests are done.
    const child = startChild(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'notice'],
      { stdio: ['ignore', 'pipe', 'pipe'], lifetime: 'file' },
    );
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => fail(new Error(`redis-server did not start in 120 s:\n${output}`)), 120_000);
      const fail = (error: Error) => {
        clearTimeout(timer);
        child.kill('SIGKILL');
        this.child = null;
        reject(error);
      };
      child.on('error', (error) => fail(error));
      const onExit = (code: number | null) => fail(new Error(`redis-server exited (${code}):\n${output}`));
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          child.off('exit', onExit);
          child.stdout!.off('data', onData); // the stream keeps flowing; later log lines are discarded
          resolve();
        }
      };
      child.once('exit', onExit);
      child.stdout!.on('data', onData);
    });
  }

  /** A clean shutdown (SIGTERM), waiting for the process to end. */
  async stop(): Promise<void> {
    await this.end('SIGTERM');
  }

  /** kill -9: connections drop without a goodbye. */
  async kill(): Promise<void> {
    await this.end('SIGKILL');
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** SIGSTOP: the kernel still accepts connections, nothing answers. `thaw()` resumes. */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  thaw(): void {
    this.child?.kill('SIGCONT');
  }

  /** Runs one command through `redis-cli` and returns its raw output. */
  cli(...args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile('redis-cli', ['-p', String(this.port), '--raw', ...args], { timeout: 60_000, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
        if (error) reject(new Error(`redis-cli ${args.join(' ')}: ${stderr || error.message}`));
        else resolve(stdout);
      });
    });
  }

  private async end(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = null;
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGCONT');
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  }
}

/** A loopback port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
