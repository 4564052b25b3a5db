import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as ownApi from '@opentelemetry/api';

export type OtelApi = typeof ownApi;

/**
 * The copy of `@opentelemetry/api` the app itself loads, for every global registration Probe makes.
 *
 * The API's global registry (`globalThis[Symbol.for('opentelemetry.js.api.1')]`) keeps the version of the copy
 * that created it, and `registerGlobal` refuses any later registration from a copy of another version, even a
 * patch apart (https://github.com/open-telemetry/opentelemetry-js/blob/main/api/src/internal/global-utils.ts).
 * A packed install dedupes Probe's peer onto the app's copy, but a linked checkout (`npm install /path/to/probe`),
 * a global install, a workspace that hoists another version, all leave Probe resolving a copy of its own: a
 * registration made through it would turn the app's `provider.register()`, propagator and context manager away.
 * Probe's own copy still reads a registry of the same or a newer minor (`isCompatible`, api/src/internal/semver.ts).
 *
 * Looked up from the app's entry script (the copy its `require` finds), then from the app root; Probe's own copy
 * when the app has none.
 */
export function appApi(root: string): OtelApi {
  for (const from of lookupPoints(root)) {
    try {
      const api = createRequire(from)('@opentelemetry/api') as Partial<OtelApi> | undefined;
      if (typeof api?.context?.setGlobalContextManager === 'function') return api as OtelApi;
    } catch {
      // no copy reachable from there
    }
  }
  return ownApi;
}

/** Files whose folder starts a lookup: the entry script as Node loads it (symlinks resolved), the root's package.json. */
function lookupPoints(root: string): string[] {
  const points: string[] = [];
  const script = process.argv[1];
  if (script) {
    try {
      points.push(realpathSync(path.resolve(script)));
    } catch {
      // `node -e`, a REPL, a script not written yet: the root alone
    }
  }
  points.push(path.join(root, 'package.json'));
  return points;
}
