import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { recordPatch } from '../util/patches';
import { MAX_MANIFEST_BYTES, readSafeText } from '../util/safeRead';

const API = '@opentelemetry/api';
/** The package root of this Probe (dist/runtime/ is two levels below it). */
const PROBE_ROOT = path.resolve(__dirname, '..', '..');

/**
 * Where the app's own `@opentelemetry/api` is, looked up from the app's entry script (the copy its `require`
 * finds), then from the app root; undefined when the app reaches none. Resolved only, not loaded.
 */
export function appApiPath(root: string): string | undefined {
  for (const from of lookupPoints(root)) {
    try {
      return createRequire(from).resolve(API);
    } catch {
      // no copy reachable from there
    }
  }
  return undefined;
}

/** Files whose folder starts a lookup: the entry script as Node loads it (symlinks resolved), the root's package.json. */
function lookupPoints(root: string): string[] {
  const points: string[] = [];
  const script = process.argv[1];
  if (script) {
    try {
      points.push(realpathSync(path.resolve(script)));
    } catch {
      // `node -e`, a REPL: the root alone
    }
  }
  points.push(path.join(root, 'package.json'));
  return points;
}

/** Whether the copy at `file` is within Probe's peer range (`>=1.7.0 <1.10.0`): the versions Probe is built for. */
function inPeerRange(file: string): boolean {
  const dir = file.slice(0, file.lastIndexOf(API) + API.length);
  const { version } = JSON.parse(readSafeText(path.join(dir, 'package.json'), { maxBytes: MAX_MANIFEST_BYTES, follow: true })) as { version?: string };
  const [major, minor] = String(version).split('.').map(Number);
  return major === 1 && minor! >= 7 && minor! < 10;
}

/**
 * Gives Probe's own files the app's copy of the API where Probe's install holds a copy of its own inside its
 * folder (a linked checkout's node_modules, a global install): the module cache entry of Probe's copy becomes the
 * app's module, before anything of Probe loads it. Only Probe's files can resolve a path inside its folder, so the
 * app sees nothing. Without it, Probe's copy reads the app's registry only when it is not a newer minor than the
 * app's (`isCompatible`, https://github.com/open-telemetry/opentelemetry-js/blob/main/api/src/internal/semver.ts):
 * an app on API 1.7 beside a linked Probe with 1.9 would have its calls recorded without their context. An app
 * copy outside Probe's peer range is left to the app (Probe's own copy reads a newer minor's registry).
 */
export function shareAppApi(root: string): void {
  try {
    const appPath = appApiPath(root);
    const ownPath = require.resolve(API);
    if (!appPath || appPath === ownPath || !ownPath.startsWith(realpathSync(PROBE_ROOT) + path.sep)) return;
    if (require.cache[ownPath] || !path.isAbsolute(appPath) || !inPeerRange(appPath)) return;
    require(appPath);
    const shared = require.cache[appPath];
    if (!shared) return;
    require.cache[ownPath] = shared;
    recordPatch(`require.cache entry of Probe's own ${API}`, "Probe's own copy of another version cannot read the app's API registry", () => {
      if (require.cache[ownPath] === shared) delete require.cache[ownPath];
    });
  } catch {
    // Probe's own copy then: registrations still go through the app's (appApi.ts)
  }
}
