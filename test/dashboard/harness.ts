import type { ChildProcess } from 'node:child_process';
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Capture } from '../../src/capture/types';
import { indexRowOf } from '../../src/capture/indexRow';
import { REPO_ROOT, TestApp } from '../helpers/app';
import { startChild, waitForLine, type StartOptions } from '../helpers/child';

export const CHROMIUM = process.env.PROBE_CHROMIUM ?? '/usr/bin/chromium';

/** Host name the browser resolves to 127.0.0.1, as a DNS-rebinding page would. */
export const REBIND_HOST = 'rebind.probe.test';

/**
 * A custom store driver written the way a user would (config `register` + `extendStore`): captures are
 * `<dir>/<id>.json`, the index is `<dir>/index.json`. The dashboard reads it like any other driver.
 */
const FIXTURE_STORE_CONFIG = `
const fs = require('node:fs');
const path = require('node:path');
module.exports = {
  storage: { driver: 'fixtures', fixtures: { dir: 'fixture-store' } },
  register(probe) {
    probe.extendStore('fixtures', (app, config) => {
      const dir = path.join(app.root, config.dir);
      return {
        async put() { throw new Error('read-only fixture store'); },
        async find(id) {
          if (!/^[0-9A-Za-z_-]{8,64}$/.test(id)) return null;
          try { return JSON.parse(fs.readFileSync(path.join(dir, id + '.json'), 'utf8')); } catch { return null; }
        },
        async index() {
          try { return JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8')); } catch { return []; }
        },
        async clear() {},
      };
    });
  },
};
`;

/** A temp app whose config selects the fixture driver; `add()` writes captures and the index. */
export class FixtureApp extends TestApp {
  private readonly stored: Capture[] = [];

  constructor() {
    super({ 'probe.config.cjs': FIXTURE_STORE_CONFIG }, 'shop-api');
    mkdirSync(path.join(this.dir, 'fixture-store'), { recursive: true });
  }

  add(...captures: Capture[]): void {
    for (const capture of captures) {
      this.write(path.join('fixture-store', `${capture.id}.json`), JSON.stringify(capture));
      this.stored.push(capture);
    }
    const index = [...this.stored].sort((a, b) => b.started_at - a.started_at).map(indexRowOf);
    // Written last and whole, like a store's own index update.
    writeFileSync(path.join(this.dir, 'fixture-store', 'index.json'), JSON.stringify(index));
  }
}

export interface RunningCli {
  child: ChildProcess;
  url: string;
  origin: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts the built `probe dashboard` in the app folder and waits for its first line (which ends with the URL).
 * From a `before` hook pass `{ lifetime: 'file' }` (see helpers/child.ts).
 */
export async function startDashboardCli(app: TestApp, args: string[] = ['--port', '0'], options: Pick<StartOptions, 'lifetime'> = {}): Promise<RunningCli> {
  const child = startChild(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'dashboard', ...args], {
    cwd: app.dir,
    env: app.env({ preload: 'none' }),
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options,
  });
  const match = await waitForLine(child, /^Probe dashboard: (http:\/\/\S+)$/m);
  const url = match[1]!;
  const parsed = new URL(url);
  return {
    child,
    url,
    origin: parsed.origin,
    port: Number(parsed.port),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('close', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--host-resolver-rules=MAP ${REBIND_HOST} 127.0.0.1`,
    ],
  });
}

/**
 * A page whose clipboard writes are kept in `window.__copied` (headless Chromium has no system clipboard),
 * and whose dialogs (an `alert` from a recorded payload would be one) are counted in `dialogs`.
 */
export async function openPage(browser: Browser): Promise<{ context: BrowserContext; page: Page; dialogs: string[]; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, deviceScaleFactor: 1 });
  // A string, not a function: tsx would compile a function with helpers the page does not have.
  await context.addInitScript(`
    window.__copied = [];
    Object.defineProperty(navigator, 'clipboard', {
      configurable: true,
      value: { writeText: async (text) => { window.__copied.push(text); } },
    });
  `);
  const page = await context.newPage();
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return { context, page, dialogs, errors };
}
