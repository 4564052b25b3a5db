import type { Unit } from './Unit';
import { isOwnServer, ownServers } from './ownServers';

/**
 * Whether a request unit only passed its request on to another server of the same app: every call it made is
 * the same method and path (query included) as the request it answers, sent to a server a process or thread of
 * this app listens on (see ownServers). A dev server in front of the app's own worker (`nuxi dev` in front of
 * Nitro's) does that for every request; the worker's capture holds the request and the app's calls, so the
 * proxy's is not stored: one capture per request. A server calling another service of the app (a different
 * path, or other calls besides) keeps its capture.
 */
export function onlyProxied(unit: Unit, root: string): boolean {
  const request = unit.request;
  if (unit.type !== 'request' || !request) return false;
  const calls = unit.calls.filter((call) => !call.byAgent);
  if (calls.length === 0 || unit.folded) return false;
  const asked = pathOf(request.url);
  if (asked === null) return false;
  for (const call of calls) {
    if (!call.target || call.method.toUpperCase() !== request.method || pathOf(call.url) !== asked) return false;
  }
  // Read only now, for the few requests that look like a proxy's: a loopback or unix socket hop, same path.
  const servers = ownServers(root);
  return calls.every((call) => isOwnServer(call.target!, servers));
}

function pathOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  } catch {
    return null;
  }
}
