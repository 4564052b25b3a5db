import { captureStack } from '../origin/origin';
import { callStackLimit } from '../origin/entry';
import { patchMethod } from '../util/patches';
import { keepForeignMarks } from '../runtime/join/foreignMarks';

type Entry = (...args: unknown[]) => unknown;
type EntryModule = Record<'request' | 'get', Entry>;

const ORIGINAL = Symbol.for('probe.http.entry.original');
const WHY =
  "the caller's line and the request before its body and socket: Node 20's http.client.request.start fires in ClientRequest._finish (https://github.com/nodejs/node/blob/v20.x/lib/_http_client.js), and a stack taken in instrumentation-http's requestHook walks a dozen more frames";
const SHIMMER_MARKS = ['__wrapped', '__original', '__unwrap'];
/** No stack taken by an entry point that is still running (the lens then captures its own). */
const NONE = undefined;
let taken: NodeJS.CallSite[] | null | undefined = NONE;
/** The arguments of the `http.request`/`get` call in progress (see entryPort). */
let callArgs: ArrayLike<unknown> | undefined;

/**
 * The call sites of the `http.request`/`http.get` call in progress, taken where the app (or its client
 * library) called it, or undefined outside one. Once: the first request made inside the call takes them.
 */
export function takeEntryStack(): NodeJS.CallSite[] | null | undefined {
  const sites = taken;
  taken = NONE;
  return sites;
}

/**
 * The port the `http.request`/`get` call in progress connects to, read from its arguments as Node merges them
 * (a URL, then options over it; else the options' or the agent's default port), or undefined outside one. Why:
 * a ClientRequest keeps its host but not its port, and a Host header set by the caller may leave the port out
 * (New Relic's collector client does).
 */
export function entryPort(agent: unknown): number | undefined {
  const args = callArgs;
  if (!args) return undefined;
  let port: unknown;
  let defaultPort: unknown;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (typeof arg === 'string') {
      const urlPort = portOf(arg);
      if (urlPort) port = urlPort;
    } else if (arg instanceof URL) {
      if (arg.port) port = arg.port;
    } else if (arg && typeof arg === 'object') {
      const options = arg as { port?: unknown; defaultPort?: unknown };
      if (options.port !== undefined && options.port !== null && options.port !== '') port = options.port;
      if (options.defaultPort) defaultPort = options.defaultPort;
    }
  }
  const value = Number(port || defaultPort || (agent as { defaultPort?: unknown } | null)?.defaultPort);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * A URL text's port ('' when it names none or does not parse). Remembered: a client calls the same few URLs again
 * and again, and a URL parsed per request was a tenth of what Probe adds to a node:http call. Bounded, and only
 * short texts are kept.
 */
const ports = new Map<string, string>();
const MAX_PORTS = 256;
const MAX_KEPT_URL = 1024;

function portOf(text: string): string {
  let port = ports.get(text);
  if (port !== undefined) return port;
  port = parseUrl(text)?.port ?? '';
  if (text.length <= MAX_KEPT_URL) {
    if (ports.size >= MAX_PORTS) ports.clear();
    ports.set(text, port);
  }
  return port;
}

function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/**
 * Wraps `request` and `get` of node:http and node:https, above instrumentation-http's own wrappers, to take
 * the caller's stack there. Why: the lens's hook runs a dozen OTel and node frames deeper, and V8 pays for
 * every optimized frame it walks (it rebuilds each one's inlined frames): measured in a busy server, a
 * capture from the hook cost about 75 µs against about 45 µs from here. The hook falls back to its own
 * capture when the call did not come through these wrappers (an ESM named import bound before Probe started,
 * or an instrumentation of the app's that wrapped these functions again).
 * `onRequest` gets each request no lens hook recorded inside the call, while its stack is still taken: the
 * way in when the app's own instrumentation makes the client spans. Node 20's `http.client.request.start`
 * channel fires only in `_finish`, after the body was written and maybe after the socket was assigned, so a
 * lens started there misses the body, the connection phases and the caller's line.
 */
export function wrapHttpEntries(modules: EntryModule[], onRequest?: (request: object) => void): () => void {
  const undo: Array<() => void> = [];
  for (const mod of modules) {
    for (const name of ['request', 'get'] as const) {
      const original = mod[name];
      if (typeof original !== 'function' || (original as { [ORIGINAL]?: Entry })[ORIGINAL]) continue;
      // `arguments` passed on as they came, as the lens's wrappers do: no rest array on every request.
      const entry = function (this: unknown) {
        const args = arguments as unknown as unknown[];
        // Nested (`https.get` calls `https.request`): the outer call's stack stands.
        if (taken !== NONE) return original.apply(this, args);
        taken = captureStack(callStackLimit());
        callArgs = args;
        try {
          const request = original.apply(this, args);
          // No lens hook took the stack inside the call (the app's instrumentation made the span, or none did):
          // the request is handed on now, before the app writes its body and before it has a socket.
          if (taken !== NONE && onRequest && request && typeof request === 'object') {
            try {
              onRequest(request);
            } catch {
              // recording never changes the app's call
            }
          }
          return request;
        } finally {
          taken = NONE;
          callArgs = undefined;
        }
      } as Entry & { [ORIGINAL]?: Entry };
      entry[ORIGINAL] = original;
      Object.defineProperty(entry, 'name', { value: original.name });
      // shimmer's marks (instrumentation-http's wrapper): an instrumentation that checks isWrapped, or
      // unwraps before patching, sees the module as it would without this wrapper.
      for (const mark of SHIMMER_MARKS) {
        const descriptor = Object.getOwnPropertyDescriptor(original, mark);
        if (descriptor) Object.defineProperty(entry, mark, descriptor);
      }
      keepForeignMarks(entry, original);
      const undoEntry = patchMethod(mod, name, `node:http(s).${name}`, WHY, () => entry);
      if (undoEntry) undo.push(undoEntry);
    }
  }
  return () => undo.reverse().forEach((fn) => fn());
}
