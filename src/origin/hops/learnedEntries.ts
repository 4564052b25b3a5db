import path from 'node:path';
import { currentEntry, enterLibrary } from '../../origin/entry';
import { captureStack, capturingOrigins } from '../origin';
import { patchMethod } from '../../util/patches';
import { isProbeCode } from '../../util/ownCode';

/**
 * Client libraries that hop, learned rather than listed. V8's async stack traces follow `await` chains, but they
 * stop where a library returns a promise from an async function without awaiting it (Apollo's RESTDataSource:
 * `trace()` returns `fn()`, `performRequest` returns `this.trace(...)`), chains `.then()` in plain functions, or
 * starts the request from a timer, `nextTick` or an event: the call's stack then holds the library's frames and
 * no app frame. Such a call's origin stays null; the package whose frame is outermost on that stack is learned,
 * and the methods of the classes it exports become library entries from then on (origin/entry: the app's stack
 * is taken where it calls one, carried in the async context to the calls the library makes for it).
 *
 * Bounded and cheap: only packages seen to lose the app's frame are hooked, at most MAX_PACKAGES, each at most
 * MAX_METHODS methods; a hooked call costs one short stack capture (an entry inside another costs a context
 * lookup). CommonJS packages only: an ES module's exports are read-only bindings Probe does not reach from here.
 */

const MAX_PACKAGES = 16;
const MAX_METHODS = 200;
/**
 * Frames taken at a hooked method: the app's frame is its caller, or a few frames up when the app went through
 * another library first. Each frame costs about a microsecond and a half, so few.
 */
const ENTRY_FRAMES = 6;
const NODE_MODULES = `${path.sep}node_modules${path.sep}`;
const WHY =
  "the package started a call with no app frame on its stack: V8's async stack traces stop where a promise is returned un-awaited from an async function, chained with .then(), or resumed from a timer or event";

const learned = new Set<string>();

/** The package folder a file lies in (`…/node_modules/name` or `…/node_modules/@scope/name`), or null. */
export function packageOf(file: string): string | null {
  const at = file.lastIndexOf(NODE_MODULES);
  if (at < 0) return null;
  const rest = file.slice(at + NODE_MODULES.length).split(path.sep);
  const name = rest[0]?.startsWith('@') ? rest.slice(0, 2) : rest.slice(0, 1);
  if (name.length === 0 || !name[name.length - 1]) return null;
  return file.slice(0, at + NODE_MODULES.length) + name.join(path.sep);
}

/** A call whose stack had no app frame and no library entry: the outermost package on it is learned. */
export function learnFromStack(sites: NodeJS.CallSite[] | null): void {
  if (!sites || learned.size >= MAX_PACKAGES) return;
  const packages: string[] = [];
  for (const site of sites) {
    const name = site.getFileName();
    if (!name) continue;
    const file = name.startsWith('file://') ? decodeURIComponent(new URL(name).pathname) : name;
    // Probe's own frames (its wrappers, when installed in node_modules) are never a library to hook.
    if (isProbeCode(file)) continue;
    const pkg = packageOf(file);
    if (pkg && packages[packages.length - 1] !== pkg) packages.push(pkg);
  }
  const outer = packages[packages.length - 1];
  if (!outer || learned.has(outer)) return;
  learned.add(outer);
  hookPackage(outer);
}

/** Every loaded CommonJS module of the package: the methods of the classes it exports become entries. */
function hookPackage(pkg: string): void {
  let budget = MAX_METHODS;
  const seen = new Set<object>();
  for (const [file, module] of Object.entries(require.cache)) {
    if (!module || !file.startsWith(pkg + path.sep) || file.slice(pkg.length + 1).includes(NODE_MODULES.slice(1))) continue;
    const exports: unknown = module.exports;
    // A function exported with its classes as properties (`request.Request`), or an object of them.
    const values = typeof exports === 'function' ? [exports, ...Object.values(exports)] : exports && typeof exports === 'object' ? Object.values(exports) : [];
    for (const value of values) {
      if (typeof value !== 'function' || !isClass(value)) continue;
      const proto = (value as { prototype: Record<string, unknown> }).prototype;
      if (seen.has(proto)) continue;
      seen.add(proto);
      for (const key of Object.getOwnPropertyNames(proto)) {
        if (budget <= 0) return;
        const descriptor = Object.getOwnPropertyDescriptor(proto, key);
        if (key === 'constructor' || !descriptor || typeof descriptor.value !== 'function' || !descriptor.writable) continue;
        if (patchMethod(proto as Record<string, (...args: unknown[]) => unknown>, key, `${path.basename(pkg)} ${value.name}.prototype.${key}`, WHY, asEntry))
          budget--;
      }
    }
  }
}

/** A class (its prototype has methods of its own), not a plain function. */
function isClass(fn: Function): boolean {
  const proto = (fn as { prototype?: object }).prototype;
  return !!proto && Object.getOwnPropertyNames(proto).length > 1;
}

/**
 * The method run as a library entry, with the original's name and length (the app may read them). Inside another
 * entry (the library calling its own methods) it costs a context lookup; outside, one short stack capture.
 */
function asEntry(original: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
  const entry = function (this: unknown) {
    const args = arguments as unknown as unknown[];
    if (currentEntry() || !capturingOrigins()) return original.apply(this, args);
    const sites = captureStack(ENTRY_FRAMES, entry);
    if (!sites) return original.apply(this, args);
    return enterLibrary(() => original.apply(this, args), entry, { sites });
  };
  Object.defineProperty(entry, 'name', { value: original.name, configurable: true });
  Object.defineProperty(entry, 'length', { value: original.length, configurable: true });
  return entry;
}

/** The packages learned so far (for tests and diagnostics). */
export function learnedPackages(): string[] {
  return [...learned];
}
