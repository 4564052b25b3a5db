import fs from 'node:fs';
import path from 'node:path';
import { running, whilePossible } from '../helpers/app';
import { killGroup, startChild, waitForLine } from '../helpers/child';
import { cleanEnv } from '../helpers/pinned';
import { REGISTER, untilServing, WARM_PATH } from '../frames/run';

/** What a server answered one path: its status and, for JSON answers, the body (pages carry per-run asset names). */
export interface Answer {
  path: string;
  status: number;
  body: string;
}

/** The index row of a stored capture. */
export interface Row {
  type: string;
  name: string;
  route: string | null;
  status: string;
  counts: { http?: number };
}

export interface Served {
  answers: Answer[];
  rows: Row[];
  output: string;
}

/**
 * Starts a server (node `args` in `app`, the preload given or not), waits for `ready` (its first group: the base
 * URL), asks each path in turn, and with the preload waits until the request captures stored satisfy `until`
 * (default: one per path). With `warm`, a dev server is asked until it serves first (see `untilServing`). The server and its children are killed however the test ends.
 */
export async function serve(
  app: string,
  args: string[],
  options: { preload: boolean; ready: RegExp; paths: string[]; env?: NodeJS.ProcessEnv; until?: (rows: Row[]) => boolean; warm?: boolean },
): Promise<Served> {
  fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
  const env = { ...cleanEnv(), ...options.env, ...(options.preload ? { NODE_OPTIONS: `--require ${REGISTER}` } : {}) };
  const child = startChild(process.execPath, args, { cwd: app, env });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    const base = (await waitForLine(child, options.ready, 300_000))[1]!;
    if (options.warm) await untilServing(base);
    const answers: Answer[] = [];
    for (const at of options.paths) {
      const response = await fetch(new URL(at, base));
      const text = await response.text();
      const json = (response.headers.get('content-type') ?? '').includes('json');
      // The server's own address (a new port each run) written as <base>.
      answers.push({ path: at, status: response.status, body: json ? text.split(new URL(base).host).join('<base>') : String(text.length > 0) });
    }
    const until = options.until ?? ((rows: Row[]) => rows.length >= options.paths.length);
    const rows = options.preload
      ? await whilePossible(
          () => {
            const found = requestRows(app);
            return until(found) && found;
          },
          () => running(child),
          'the request captures',
        )
      : [];
    return { answers, rows, output };
  } finally {
    killGroup(child);
  }
}

/** The request captures stored in the app's folder. */
export function requestRows(app: string): Row[] {
  const dir = path.join(app, '.probe', 'captures');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .map((file) => (JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { row: Row }).row)
    .filter((row) => row.type === 'request' && row.name !== `GET ${WARM_PATH}`);
}

/** Writes files (path relative to `app` → text) into an app folder. */
export function writeFiles(app: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(app, file)), { recursive: true });
    fs.writeFileSync(path.join(app, file), text);
  }
}
