import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { TestApp } from '../helpers/app';
import { startChild, waitForLine } from '../helpers/child';

export interface RunningService {
  name: string;
  url: string;
  child: ChildProcess;
}

/**
 * Several services in one repository-like folder (`shop/`, one package folder per service), every one started as a
 * real child process under the preload with `PROBE_ROOT` at the shared folder: one store for all of them.
 */
export class Services {
  readonly app: TestApp;
  private readonly running: RunningService[] = [];

  constructor(readonly env: Record<string, string | undefined> = {}) {
    this.app = new TestApp({}, 'shop');
  }

  get root(): string {
    return this.app.dir;
  }

  /** Starts `service.cjs` in a package folder named `name`; `next` are the URLs it calls for each request. */
  async start(name: string, options: { next?: string[]; env?: Record<string, string | undefined>; recorded?: boolean } = {}): Promise<RunningService> {
    const dir = path.join(this.root, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true }));
    copyFileSync(path.join(__dirname, 'service.cjs'), path.join(dir, 'service.cjs'));
    const env = this.app.env({
      preload: options.recorded === false ? 'none' : 'require',
      env: { PROBE_ROOT: this.root, ...this.env, ...options.env, NEXT: (options.next ?? []).join(',') },
    });
    const child = startChild(process.execPath, ['service.cjs'], { cwd: dir, env });
    const [, port] = await waitForLine(child, /listening (\d+)/);
    const service = { name, url: `http://127.0.0.1:${port}/`, child };
    this.running.push(service);
    return service;
  }
}

/** Starts a service that Probe does not run in (another language): `command` in a folder `name` of the shared root. */
export async function startForeign(services: Services, name: string, command: string, args: string[], env: Record<string, string>): Promise<RunningService> {
  const dir = path.join(services.root, name);
  mkdirSync(dir, { recursive: true });
  const child = startChild(command, args, { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env } });
  const [, port] = await waitForLine(child, /listening (\d+)/);
  return { name, url: `http://127.0.0.1:${port}/`, child };
}

/** GET `url` on a fresh connection; the body as JSON. */
export function getJson(url: string, agent?: http.Agent): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: agent ?? false }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => {
          try {
            resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) });
          } catch (error) {
            reject(error);
          }
        });
      })
      .on('error', reject);
  });
}
