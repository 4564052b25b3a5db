import path from 'node:path';
import { existsSync } from 'node:fs';
import { MAX_MANIFEST_BYTES, readSafeText } from '../util/safeRead';

/**
 * The name a process's captures carry as `service`: `OTEL_SERVICE_NAME` (what the app's own OpenTelemetry setup
 * calls it), else the name in the nearest package.json from the working directory up to the app root (several
 * services sharing one root keep their own names), else the root's package name, else the command (the script's
 * file name). The config file's `service` is laid over this; `OTEL_SERVICE_NAME` over both (resolve.ts).
 */
export function defaultServiceName(root: string, cwd: string = process.cwd(), argv: readonly string[] = process.argv): string {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const name = packageNameIn(dir);
    if (name) return name;
    if (dir === root || path.dirname(dir) === dir || !isInside(dir, root)) break;
  }
  const rootName = packageNameIn(root);
  if (rootName) return rootName;
  const script = argv[1];
  return script ? path.basename(script) : path.basename(argv[0] ?? 'node');
}

/** `OTEL_SERVICE_NAME` when set to something other than blanks. */
export function envServiceName(env: NodeJS.ProcessEnv): string | null {
  const name = env.OTEL_SERVICE_NAME?.trim();
  return name ? name : null;
}

function packageNameIn(dir: string): string | null {
  const file = path.join(dir, 'package.json');
  if (!existsSync(file)) return null;
  try {
    const name = JSON.parse(readSafeText(file, { maxBytes: MAX_MANIFEST_BYTES, follow: true })).name;
    return typeof name === 'string' && name ? name : null;
  } catch {
    return null;
  }
}

function isInside(dir: string, root: string): boolean {
  const relative = path.relative(root, dir);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
