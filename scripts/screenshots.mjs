// `node scripts/screenshots.mjs`: regenerates the README's dashboard screenshots (docs/screenshots/*.png) from the
// bundled example. It builds Probe, runs `examples/run-example.mjs` in a temporary copy of the package (so the
// checkout's own `.probe/` is left alone and the pictures show only the example's captures), starts
// `probe dashboard --port 0` on that copy's store and drives headless Chromium (playwright-core) through it.
// `--no-build` skips `npm run build` (dist/ must be current). Every child it starts is killed at the end.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(repo, 'docs', 'screenshots');
const CHROMIUM = process.env.PROBE_CHROMIUM ?? '/usr/bin/chromium';
const STEP_TIMEOUT = 30_000;

/** Children run in process groups of their own, so a kill also reaches what they start (the shop, `node --test`). */
const children = new Set();
function start(command, args, options) {
  const child = spawn(command, args, { ...options, detached: true });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}
function killAll() {
  for (const child of children) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group is gone already.
    }
  }
  children.clear();
}

function run(command, args, cwd) {
  return new Promise((resolve, reject) => {
    const child = start(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code ?? signal}`))));
  });
}

/** A copy of the package with the example and dist/, its node_modules linked to the checkout's. */
function exampleCopy() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-screenshots-'));
  for (const entry of ['package.json', 'dist', 'examples', 'scripts']) cpSync(path.join(repo, entry), path.join(dir, entry), { recursive: true });
  symlinkSync(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

function startDashboard(cwd) {
  const child = start(process.execPath, [path.join(cwd, 'dist', 'cli', 'main.js'), 'dashboard', '--port', '0'], {
    cwd,
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      text += chunk;
      const match = text.match(/^Probe dashboard: (http:\/\/\S+)$/m);
      if (match) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`the dashboard exited early (${code})`)));
  });
}

/** Writes `name`: the page from `top` to `bottom` (page pixels, full width), or to the end of its content. */
async function shoot(page, name, what, top = 0, bottom = null) {
  // Scrolled back to the top, the sticky top bar and table header sit where they belong, not over a row.
  await page.evaluate(() => window.scrollTo(0, 0));
  const end = bottom ?? (await page.evaluate(() => document.querySelector('main').getBoundingClientRect().bottom + window.scrollY + 24));
  const file = path.join(outDir, name);
  await page.screenshot({ path: file, fullPage: true, clip: { x: 0, y: top, width: 1280, height: Math.ceil(end - top) } });
  console.log(`  ${path.relative(repo, file)}: ${what}`);
}

/** A locator's top and bottom in page pixels. */
async function extent(locator) {
  await locator.page().evaluate(() => window.scrollTo(0, 0));
  return locator.evaluate((el) => {
    const box = el.getBoundingClientRect();
    return { top: box.top + window.scrollY, bottom: box.bottom + window.scrollY };
  });
}

async function capturePictures(url) {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    context.setDefaultTimeout(STEP_TIMEOUT);
    const page = await context.newPage();
    const visit = async (hash) => {
      await page.goto('about:blank');
      await page.goto(url + hash);
    };
    const captureRow = (type, text) =>
      page
        .locator('[data-testid=capture-row]')
        .filter({ has: page.locator('.type', { hasText: new RegExp(`^${type}$`, 'i') }) })
        .filter({ hasText: text });
    const idOf = async (type, text) => {
      const id = await captureRow(type, text).last().getAttribute('data-id', { timeout: STEP_TIMEOUT });
      if (!id) throw new Error(`the example stored no ${type} capture matching ${text}`);
      return id;
    };

    // (a) The captures list: the requests, the send-receipt jobs, the shop's command capture and the test capture.
    await visit('#/');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=capture-row]').length >= 7);
    // The oldest checkout: the first one the example sent (its pool, its 402 payment call, its failed call).
    const checkout = await idOf('request', '/carts/:cart/checkout');
    const job = await idOf('job', 'send-receipt');
    const testCapture = await idOf('test', 'rates > are quoted');
    await idOf('command', '');
    await shoot(page, 'captures.png', 'the captures list (request, job, command and test captures)');

    // (b) A request's HTTP tab: CODE column (file:line), durations, the pool's calls.
    await visit(`#/captures/${checkout}/http`);
    await page.waitForSelector('[data-testid=http-row]');
    await shoot(page, 'http-tab.png', "a checkout request's HTTP tab (code lines, durations, the pool)");

    const rows = page.locator('[data-testid=http-row]');
    const indexOf = async (text) => {
      const index = await rows.filter({ hasText: text }).first().getAttribute('data-row');
      if (index === null) throw new Error(`the checkout has no call matching ${text}`);
      return index;
    };
    const paymentIndex = await indexOf('/payments');
    const failedIndex = await indexOf('/unreachable');

    // (c) The payment call's timing bar (and its masked payload), the failed call's exception with its cause.
    await page.click(`[data-testid=http-row][data-row="${paymentIndex}"]`);
    await page.click(`[data-testid=http-row][data-row="${failedIndex}"]`);
    const failed = page.locator(`[data-testid=row-detail][data-row="${failedIndex}"]`);
    await failed.locator('[data-testid=exception]').waitFor();
    await page.locator(`[data-testid=row-detail][data-row="${paymentIndex}"] [data-testid=waterfall]`).waitFor();
    const from = await extent(page.locator(`[data-testid=http-row][data-row="${paymentIndex}"]`));
    const to = await extent(failed.locator('[data-testid=exception]'));
    await shoot(
      page,
      'failed-call.png',
      'the payment call with its timing bar and masked payload, the failed call with its cause (ECONNREFUSED)',
      from.top - 4,
      to.bottom + 24,
    );

    // (d) Masking: the send-receipt job's call, its authorization header shown as ********.
    await visit(`#/captures/${job}/http/0`);
    const mail = page.locator('[data-testid=row-detail][data-row="0"]');
    await mail.waitFor();
    await shoot(page, 'masking.png', "the send-receipt job's call: its authorization header masked", 0, Math.min(800, (await extent(mail)).bottom + 24));

    // (e) The timeline: the request's spans, the pool and the calls under it.
    await visit(`#/captures/${checkout}/timeline`);
    await page.waitForSelector('[data-testid=timeline] .tl-row');
    await shoot(page, 'timeline.png', "the checkout's timeline with the pool");

    // (f) A test capture: the test case from `node --test` and its call.
    await visit(`#/captures/${testCapture}/http/0`);
    const call = page.locator('[data-testid=row-detail][data-row="0"]');
    await call.waitFor();
    await shoot(page, 'test-capture.png', 'the test capture and its call', 0, Math.min(800, (await extent(call)).bottom + 24));
  } finally {
    await browser.close();
  }
}

let copy;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    killAll();
    if (copy) rmSync(copy, { recursive: true, force: true });
    process.exit(130);
  });
}
try {
  if (!process.argv.includes('--no-build')) await run('npm', ['run', 'build'], repo);
  copy = exampleCopy();
  console.log(`running the example in ${copy}`);
  await run(process.execPath, ['examples/run-example.mjs'], copy);
  const url = await startDashboard(copy);
  mkdirSync(outDir, { recursive: true });
  console.log(`\ndashboard at ${url}; writing:`);
  await capturePictures(url);
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  killAll();
  if (copy) rmSync(copy, { recursive: true, force: true });
}
