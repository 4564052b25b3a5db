import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';
import { currentEntry, enterLibrary } from '../../origin/entry';
import { captureStack, capturingOrigins } from '../origin';
import { patchMethod } from '../../util/patches';
import { isProbeCode } from '../../util/ownCode';
import { readManifest } from '../../util/manifest';
import { createLogger, type Logger } from '../../util/logger';
import { forgetLearned, rememberLearned } from './learnedFile';
import { isBuiltinName, isOwnPackage, refusal } from './hookable';

/**
 * Client libraries that hop, learned rather than listed. V8's async stack traces follow `await` chains, but they
 * stop where a library returns a promise from an async function without awaiting it (Apollo's RESTDataSource:
 * `trace()` returns `fn()`, `performRequest` returns `this.trace(...)`), chains `.then()` in plain functions, or
 * starts the request from a timer, `nextTick` or an event: the call's stack then holds the library's frames and
 * no app frame. Such a call's origin stays null; the package outermost on that stack is learned, with the packages
 * whose frames ran on the same object (an SDK's facade class, where the app entered, over its core package's base
 * class, which holds the outermost frames), and the methods of the classes they
 * export become library entries from then on (origin/entry: the app's stack is taken where it calls one, carried
 * in the async context to the calls the library makes for it). Each is also kept in `<root>/.probe` by name and
 * version, so the app's next runs hook it as soon as it is loaded (learnedHops): their first call has the line.
 *
 * Bounded and cheap: only packages seen to lose the app's frame are hooked, at most MAX_PACKAGES, each at most
 * MAX_METHODS methods; a hooked call costs one short stack capture (an entry inside another costs a context
 * lookup). A CommonJS package's loaded modules are all reached (require.cache); an ES module's classes through
 * its namespace (the bindings are read-only, the class objects they hold are not).
 */

const MAX_PACKAGES = 16;
const MAX_METHODS = 200;
/** Base classes walked above an exported class (the methods an instance inherits from the package's own bases). */
const MAX_BASES = 4;
/**
 * Frames taken at a hooked method: the app's frame is its caller, or a few frames up when the app went through
 * another library first. Each frame costs about a microsecond and a half, so few.
 */
const ENTRY_FRAMES = 6;
const NODE_MODULES = `${path.sep}node_modules${path.sep}`;
const WHY =
  "the package started a call with no app frame on its stack: V8's async stack traces stop where a promise is returned un-awaited from an async function, chained with .then(), or resumed from a timer or event";

/** Package folders learned or hooked at load, and the methods each may still hook. */
const budgets = new Map<string, number>();
/** Each hooked package's undos, and where it is kept (to take it off the list when its hook misbehaves). */
const hooked = new Map<string, { undos: Array<() => void>; kept?: { root: string; name: string } }>();
/** Packages whose hook misbehaved: unhooked for the rest of the run, never learned again. */
const dropped = new Set<string>();
/**
 * Set while Probe's own part of an entry runs (its context lookup, its stack capture): a hooked method reached
 * from there is a package Probe itself runs, and calls straight through (a hook that finds itself on the stack).
 */
let inProbe = false;
let logger: Logger | undefined;
/** The wrappers made here: a class reached twice (a base of two exports, a module imported again) is hooked once. */
const ours = new WeakSet<Function>();

/** The package folder a file lies in (`…/node_modules/name` or `…/node_modules/@scope/name`), or null. */
export function packageOf(file: string): string | null {
  const at = file.lastIndexOf(NODE_MODULES);
  if (at < 0) return null;
  const rest = file.slice(at + NODE_MODULES.length).split(path.sep);
  const name = rest[0]?.startsWith('@') ? rest.slice(0, 2) : rest.slice(0, 1);
  if (name.length === 0 || !name[name.length - 1]) return null;
  return file.slice(0, at + NODE_MODULES.length) + name.join(path.sep);
}

/**
 * A call whose origin is null and that ran in no library entry: when every frame of its stack is a package's (or
 * Node's), the packages on it are learned, hooked now and kept for the app's next runs under `root` (none given:
 * not kept). A stack with a frame of the app's own teaches nothing.
 */
export function learnFromStack(sites: NodeJS.CallSite[] | null, root?: string): void {
  if (!sites || budgets.size >= MAX_PACKAGES) return;
  const seen = new Map<string, { modules: Set<string>; esm: boolean; receivers: Set<string> }>();
  for (const site of sites) {
    const name = site.getFileName();
    if (!name) continue;
    const file = name.startsWith('file://') ? fileURLToPath(name) : name;
    // Probe's own frames (its wrappers, when installed in node_modules) are never a library to hook.
    if (isProbeCode(file)) continue;
    if (!path.isAbsolute(file)) continue; // node: internals, code with no file
    const pkg = packageOf(file);
    // A frame of the app (or of a build's output) was there: its origin is null for another reason (no map).
    if (!pkg) return;
    // Nor are the frames of Probe's own dependencies (the async context manager that ran Probe's callback): Probe
    // calls them from inside its hooks.
    if (isOwnPackage(pkg)) continue;
    if (!seen.has(pkg)) seen.set(pkg, { modules: new Set(), esm: false, receivers: new Set() });
    const each = seen.get(pkg)!;
    // An ES module's script is named by its URL (a CommonJS module's by its path): it ran in Node's loader, under
    // that exact URL (a query included), unless it is code made from a string (eval, new Function).
    if (name.startsWith('file://') && !site.isEval()) {
      each.esm = true;
      each.modules.add(name);
    }
    const receiver = receiverOf(site);
    if (receiver) each.receivers.add(receiver);
  }
  const outermost = [...seen.keys()].pop();
  if (!outermost) return;
  const object = seen.get(outermost)!.receivers;
  for (const [pkg, { modules, esm, receivers }] of seen) {
    // The outermost package hopped; another one is learned only when its frames ran on the same object (an SDK's
    // facade class over its core package's base class), not when it is a dependency the library called (its fetch).
    if (pkg !== outermost && ![...receivers].some((receiver) => object.has(receiver))) continue;
    learn(pkg, modules, esm, root);
  }
}

/** A package learned: hooked now (its loaded CommonJS modules, the ES modules seen on the stack), kept under `root`. */
function learn(pkg: string, modules: Set<string>, esm: boolean, root: string | undefined): void {
  if (budgets.has(pkg) || budgets.size >= MAX_PACKAGES) return;
  budgets.set(pkg, MAX_METHODS);
  const kept = root ? remember(root, pkg, esm) : null;
  if (kept) hookedOf(pkg).kept = { root: root!, name: kept };
  try {
    hookPackage(pkg);
    for (const url of modules) hookModuleOf(pkg, url);
  } catch (error) {
    misbehaved(pkg, 'it could not be hooked', error);
  }
}

/**
 * A call that has the app's line, made through a learned package: when the app reached that package through another
 * one (a wrapper: `Upload.done()` of the S3 SDK's lib-storage over the client's `send`), the wrapper is learned too.
 * The wrapper's other paths into the learned package may hop where V8 does not link (a promise kept and returned
 * un-awaited), leaving a stack that holds the learned package alone; hooking the learned package cannot help there,
 * since no method of it runs while the app's frame is still linked. The wrapper is where the app entered: the
 * package whose frames are right below the app's first frame, on a stack where a learned package's frames are inner.
 */
export function learnWrapper(sites: NodeJS.CallSite[] | null, root?: string): void {
  if (!sites || budgets.size === 0 || budgets.size >= MAX_PACKAGES) return;
  let reached = false;
  let outer: string | null = null;
  const modules = new Set<string>();
  let esm = false;
  let atApp = false;
  for (const site of sites) {
    const name = site.getFileName();
    if (!name) continue;
    const file = name.startsWith('file://') ? fileURLToPath(name) : name;
    if (isProbeCode(file) || !path.isAbsolute(file)) continue;
    const pkg = packageOf(file);
    if (!pkg) {
      atApp = true;
      break;
    }
    if (isOwnPackage(pkg)) continue;
    if (budgets.has(pkg)) {
      reached = !dropped.has(pkg);
      outer = null;
      continue;
    }
    if (!reached) continue;
    if (pkg !== outer) {
      outer = pkg;
      modules.clear();
      esm = false;
    }
    if (name.startsWith('file://') && !site.isEval()) {
      esm = true;
      modules.add(name);
    }
  }
  // Only an app frame says where the app entered (a stack cut short by its frame limit does not).
  if (atApp && outer) learn(outer, modules, esm, root);
}

/**
 * The class name of the object a frame ran as a method of (`PostHog` in `PostHog.fetch`), or null: a built-in's
 * (`Object`, `Promise`), or a function the object only holds under another name (`this.httpFetch = fetch`: a
 * dependency the library calls, whose frame shows as `HTTPCache.fetch [as httpFetch]`).
 */
function receiverOf(site: NodeJS.CallSite): string | null {
  try {
    const type = site.getTypeName();
    const method = site.getMethodName();
    if (!type || type in globalThis || (method && method !== site.getFunctionName())) return null;
    return type;
  } catch {
    return null;
  }
}

/**
 * Keeps the package by the name and version its manifest gives, when the next run would hook it by that name (the
 * app's node_modules hold it at that version: see hookable); its name, or null when not kept.
 */
function remember(root: string, pkg: string, esm: boolean): string | null {
  const manifest = readManifest(pkg);
  const { name, version } = manifest ?? {};
  // No readable manifest, or one a next run would refuse (a copy nested out of the root's reach): this run only.
  if (typeof name !== 'string' || typeof version !== 'string' || refusal(name, version, root)) return null;
  rememberLearned(root, { name, version, esm });
  return name;
}

function hookedOf(pkg: string): { undos: Array<() => void>; kept?: { root: string; name: string } } {
  let each = hooked.get(pkg);
  if (!each) hooked.set(pkg, (each = { undos: [] }));
  return each;
}

/**
 * An ES module's namespace, from the loader's own map (the module ran already, under this URL: importing it again
 * evaluates nothing). Its classes are hooked a few turns later: this call is past; the next ones are not. Not while
 * `vm.SourceTextModule` exists (`--experimental-vm-modules`): a test runner may then have evaluated the file as a
 * module of its own, outside Node's loader, which would evaluate it anew; the next runs hook it at load instead.
 */
function hookModuleOf(pkg: string, url: string): void {
  if ((vm as { SourceTextModule?: unknown }).SourceTextModule) return;
  import(url).then(
    (namespace: object) => hookExports(pkg, namespace),
    () => {},
  );
}

/**
 * A learned package just loaded (its next runs: see learnedHops): its exports, and the package's other CommonJS
 * modules loaded with it. `exports` is the module's, or its ESM namespace (import-in-the-middle's), whose `default`
 * is a CommonJS module's exports when an ES module imported one. `root`: where the list that named it is kept.
 * Never a built-in, nor a copy of the same name and version inside Probe's own dependency tree.
 */
export function hookLoadedPackage(name: string, exports: unknown, root?: string): void {
  if (isBuiltinName(name)) return;
  const folder = folderOfExports(exports) ?? folderOfName(name) ?? `${NODE_MODULES}${name.split('/').join(path.sep)}`;
  if (path.isAbsolute(folder) && isOwnPackage(folder)) return;
  if (dropped.has(folder)) return;
  if (!budgets.has(folder)) {
    if (budgets.size >= MAX_PACKAGES) return;
    budgets.set(folder, MAX_METHODS);
  }
  if (root) hookedOf(folder).kept = { root, name };
  hookExports(folder, exports);
  const fallback = exports && typeof exports === 'object' ? (exports as { default?: unknown }).default : undefined;
  if (fallback && fallback !== exports) hookExports(folder, fallback);
  if (path.isAbsolute(folder)) hookPackage(folder);
}

/** The package folder of the CommonJS module whose exports these are (found once per learned package loaded). */
function folderOfExports(exports: unknown): string | null {
  const cache = require.cache;
  for (const file in cache) if (cache[file]?.exports === exports) return packageOf(file);
  return null;
}

/** The folder of a loaded CommonJS module of the package named (an ES module's import of it went past require). */
function folderOfName(name: string): string | null {
  const marker = `${NODE_MODULES}${name.split('/').join(path.sep)}${path.sep}`;
  for (const file in require.cache) if (file.includes(marker)) return packageOf(file);
  return null;
}

/** Every loaded CommonJS module of the package: the methods of the classes it exports become entries. */
function hookPackage(pkg: string): void {
  const cache = require.cache;
  const prefix = pkg + path.sep;
  for (const file in cache) {
    if (!file.startsWith(prefix) || file.includes(NODE_MODULES, prefix.length - 1)) continue;
    const module = cache[file];
    if (module) hookExports(pkg, module.exports);
  }
}

/** The classes among a module's exports (a function exported with its classes as properties, `request.Request`, or an object of them). */
function hookExports(pkg: string, exports: unknown): void {
  let values: unknown[] = [];
  try {
    values = typeof exports === 'function' ? [exports, ...Object.values(exports)] : exports && typeof exports === 'object' ? Object.values(exports) : [];
  } catch {
    return; // a namespace whose binding is not initialised yet, or a proxy that throws
  }
  for (const value of values) {
    if (typeof value !== 'function' || !isClass(value)) continue;
    let proto = (value as { prototype: object }).prototype;
    // Its own methods, then its package's base classes' (an SDK's facade class over the core class that holds them).
    for (let depth = 0; depth <= MAX_BASES && proto; depth++) {
      if (!hookPrototype(pkg, proto, value.name)) return;
      const base = Object.getPrototypeOf(proto) as object | null;
      proto = base && isPackageBase(base) ? base : (null as unknown as object);
    }
  }
}

/**
 * Whether a base prototype is a library's class, to be walked: a `class` that is not one the runtime gives (a global
 * such as EventTarget; Node's EventEmitter and streams are functions, not classes). Object.prototype ends the walk.
 */
function isPackageBase(proto: object): boolean {
  if (proto === Object.prototype || proto === Function.prototype) return false;
  const ctor = (proto as { constructor?: unknown }).constructor;
  if (typeof ctor !== 'function' || (globalThis as Record<string, unknown>)[ctor.name] === ctor) return false;
  try {
    return Function.prototype.toString.call(ctor).startsWith('class');
  } catch {
    return false;
  }
}

/** Hooks a prototype's own methods; false when the package's budget is spent. */
function hookPrototype(pkg: string, proto: object, className: string): boolean {
  for (const key of Object.getOwnPropertyNames(proto)) {
    const budget = budgets.get(pkg) ?? 0;
    if (budget <= 0) return false;
    const descriptor = Object.getOwnPropertyDescriptor(proto, key);
    if (key === 'constructor' || !descriptor || typeof descriptor.value !== 'function' || !descriptor.writable || ours.has(descriptor.value as Function))
      continue;
    const undo = patchMethod(
      proto as Record<string, (...args: unknown[]) => unknown>,
      key,
      `${path.basename(pkg)} ${className}.prototype.${key}`,
      WHY,
      (original) => asEntry(original, pkg),
    );
    if (undo) {
      budgets.set(pkg, budget - 1);
      hookedOf(pkg).undos.push(undo);
    }
  }
  return true;
}

/** A class (its prototype has methods of its own), not a plain function. */
function isClass(fn: Function): boolean {
  const proto = (fn as { prototype?: object }).prototype;
  return !!proto && Object.getOwnPropertyNames(proto).length > 1;
}

/**
 * The method run as a library entry, with the original's name and length (the app may read them). Inside another
 * entry (the library calling its own methods) it costs a context lookup; outside, one short stack capture.
 * A guest in the library's code: reached again from inside Probe's own part (the context lookup, the stack
 * capture), it calls straight through; when Probe's own part throws, the original runs as if unhooked. Either way
 * the package misbehaved: its hooks are undone and it is taken off the learned list.
 */
function asEntry(original: (...args: unknown[]) => unknown, pkg: string): (...args: unknown[]) => unknown {
  const entry = function (this: unknown) {
    const args = arguments as unknown as unknown[];
    if (inProbe) {
      misbehaved(pkg, 'Probe reached it from inside its own hook');
      return original.apply(this, args);
    }
    let sites: NodeJS.CallSite[] | null = null;
    inProbe = true;
    try {
      if (!currentEntry() && capturingOrigins()) sites = captureStack(ENTRY_FRAMES, entry);
    } catch (error) {
      misbehaved(pkg, 'its hook failed', error);
    } finally {
      inProbe = false;
    }
    if (!sites) return original.apply(this, args);
    // enterLibrary is Probe's part until it calls the original and after it returns; the original's error is its own.
    let ran = 'no' as 'no' | 'returned' | 'threw';
    let value: unknown;
    inProbe = true;
    try {
      return enterLibrary(
        () => {
          inProbe = false;
          try {
            value = original.apply(this, args);
            ran = 'returned';
            return value;
          } catch (error) {
            ran = 'threw';
            throw error;
          } finally {
            inProbe = true;
          }
        },
        entry,
        { sites },
      );
    } catch (error) {
      if (ran === 'threw') throw error;
      misbehaved(pkg, 'its hook failed', error);
    } finally {
      inProbe = false;
    }
    // Probe's part failed: the call goes on untouched (or, when the original ran already, with what it returned).
    return ran === 'returned' ? value : original.apply(this, args);
  };
  Object.defineProperty(entry, 'name', { value: original.name, configurable: true });
  Object.defineProperty(entry, 'length', { value: original.length, configurable: true });
  ours.add(entry);
  return entry;
}

/**
 * Undoes a package's hooks, keeps it from being learned or hooked again in this run and takes it off the learned
 * list: a bad run never poisons the next. Said once on stderr.
 */
function misbehaved(pkg: string, why: string, error?: unknown): void {
  if (dropped.has(pkg)) return;
  dropped.add(pkg);
  budgets.set(pkg, 0);
  const each = hooked.get(pkg);
  for (const undo of each?.undos.splice(0) ?? []) undo();
  const kept = each?.kept;
  if (kept) forgetLearned(kept.root, (entry) => entry.name === kept.name);
  (logger ??= createLogger()).warnOnce(`learned-drop ${pkg}`, `stopped hooking ${kept?.name ?? path.basename(pkg)} for call origins: ${why}`, error);
}

/** The packages learned or hooked at load so far, less those dropped (for tests and diagnostics). */
export function learnedPackages(): string[] {
  return [...budgets.keys()].filter((pkg) => !dropped.has(pkg));
}
