import type { LensFactory } from './Lens';
import { InstrumentationBase, InstrumentationNodeModuleDefinition, InstrumentationNodeModuleFile } from '@opentelemetry/instrumentation';
import type { Logger } from '../util/logger';
import { enterLibrary, markEntry, markedEntry, type EntryStack } from '../origin/entry';
import { patchMethod } from '../util/patches';
import { asGrpcCall, hookGrpcMetadata } from './grpcCallContext';

type Fn = (...args: unknown[]) => unknown;
type Undo = () => void;
/** Why the library is hooked (for the patch ledger), and the undo of each patch made. */
interface Hooking {
  why: string;
  undo: Undo[];
}
type Exports = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The client libraries that start their request (or a retry) after an async hop, so the lens sees no app
 * frame on the stack: each one's entry points, where the app's call still is. Only the app's origin needs
 * these; recording works without them. Each wrapper is a no-op where a version lacks the method.
 */
const LIBRARIES: Record<string, { why: string; hook(exports: Exports, hooking: Hooking): void; files?: LibraryFile[] }> = {
  got: {
    why: "got() builds its Options while the app's call is on the stack, then its Request awaits hooks before calling the request function; retries start from a timer (https://github.com/sindresorhus/got/blob/main/source/core/index.ts, _makeRequest)",
    hook: (exports, hooking) => hookGot(exports.Options?.prototype, hooking),
    files: [
      {
        // got 11 (CommonJS, the last before got went ESM-only): no Options class; its client functions take
        // `normalizeArguments` from the Request class when they load, so the class is hooked where it is defined.
        path: 'got/dist/source/core/index.js',
        versions: ['>=11.0.0 <12'],
        hook: (exports, hooking) => hookGot11(exports.default, hooking),
      },
    ],
  },
  ky: {
    why: 'ky retries from `await delay()` inside its own promise chain, which V8 async stack traces do not link to the app (https://github.com/sindresorhus/ky/blob/main/source/core/Ky.ts)',
    hook: (exports, hooking) => {
      hookKy(exports.default, hooking);
      hookKyCall(exports, hooking);
    },
  },
  superagent: {
    why: 'superagent sends in .end(), which `await` calls through .then() in a microtask with no app frame (https://github.com/ladjs/superagent/blob/master/src/request-base.js)',
    hook: (exports, hooking) => hookSuperagent(exports, hooking),
  },
  stripe: {
    why: "Stripe's request sender awaits the user agent and its retry timers before http.request (https://github.com/stripe/stripe-node/blob/master/src/RequestSender.ts)",
    hook: (exports, hooking) =>
      scoped((exports.StripeResource ?? exports.default?.StripeResource)?.prototype, '_makeRequest', 'stripe StripeResource.prototype._makeRequest', hooking),
  },
  '@anthropic-ai/sdk': {
    why: "the Anthropic client's request() awaits its options, then fetches and retries inside an APIPromise the app's await does not link to (https://github.com/anthropics/anthropic-sdk-typescript/blob/main/src/client.ts)",
    hook: (exports, hooking) => scoped(exports.BaseAnthropic?.prototype, 'request', '@anthropic-ai/sdk BaseAnthropic.prototype.request', hooking),
  },
  '@grpc/grpc-js': {
    why: "a gRPC call's stream starts once the channel has resolved its target, connected and picked a subchannel, from the channel's own events (https://github.com/grpc/grpc-node/blob/master/packages/grpc-js/src/client.ts)",
    hook: (exports, hooking) => {
      hookGrpcClient(exports.Client, hooking);
      hooking.undo.push(...hookGrpcMetadata(exports.Metadata, hooking.why));
    },
    files: [
      {
        // The generated clients' methods (makeGenericClientConstructor, loadPackageDefinition) hold Client's methods
        // as make-client.js read them when it loaded, right after this file: the class is hooked where it is defined.
        path: '@grpc/grpc-js/build/src/client.js',
        versions: ['>=1.0.0'],
        hook: (exports, hooking) => hookGrpcClient(exports.Client, hooking),
      },
    ],
  },
};

/** A file of a library hooked where it loads: what its main module exports is not enough (got 11). */
interface LibraryFile {
  path: string;
  versions: string[];
  hook(exports: Exports, hooking: Hooking): void;
}

/** The modules hooked here: ESM apps need the import loader for them (see esmHook). */
export const LIBRARY_MODULES = Object.keys(LIBRARIES);
/** ESM-only packages: a CommonJS app reaches them through `import()`, which only the loader sees. */
export const ESM_ONLY_MODULES = ['ky'];

/** Runs the method as a library entry (see origin/entry.ts). */
function scoped(owner: object | undefined, key: string, target: string, { why, undo }: Hooking): void {
  if (!owner) return;
  const done = patchMethod(owner as Record<string, Fn>, key, target, why, asEntry);
  if (done) undo.push(done);
}

function asEntry(original: Fn): Fn {
  const entry = function (this: unknown) {
    const args = arguments as unknown as unknown[];
    return enterLibrary(() => original.apply(this, args), entry);
  };
  entries.add(entry);
  return entry;
}

/** The entries made here: a method reached twice (its file, then the package's main module) is hooked once. */
const entries = new WeakSet<Function>();

/** gRPC's client entry points, by what the class has: every `make…Request` method (unary, client, server and bidi streams). */
const GRPC_REQUEST = /^make[A-Za-z]*Request$/;

/** Each one a library entry, run as a gRPC call (see grpcCallContext: its stream starts in the call's context). */
function hookGrpcClient(Client: unknown, { why, undo }: Hooking): void {
  const proto = typeof Client === 'function' ? (Client.prototype as Record<string, Fn> | undefined) : undefined;
  if (!proto) return;
  for (const key of Object.getOwnPropertyNames(proto)) {
    if (!GRPC_REQUEST.test(key) || typeof proto[key] !== 'function' || entries.has(proto[key])) continue;
    const done = patchMethod(proto, key, `@grpc/grpc-js Client.prototype.${key}`, why, (original) => {
      const entry = function (this: unknown) {
        const args = arguments as unknown as unknown[];
        return asGrpcCall(() => enterLibrary(() => original.apply(this, args), entry));
      };
      entries.add(entry);
      return entry;
    });
    if (done) undo.push(done);
  }
}

const KY_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head'];
const KY_WRAPPED = Symbol.for('probe.ky.wrapped');
type Ky = Record<string | symbol, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A ky instance (a function with its shortcuts) not wrapped yet. */
function isKy(ky: unknown): ky is Ky {
  return typeof ky === 'function' && !(ky as Ky)[KY_WRAPPED];
}

/** ky's default instance: its shortcuts, and the instances `create` and `extend` return. */
function hookKy(ky: Ky | undefined, hooking: Hooking): void {
  if (!isKy(ky)) return;
  ky[KY_WRAPPED] = true;
  for (const name of KY_METHODS) scoped(ky, name, `ky.${name}`, hooking);
  for (const name of ['create', 'extend']) {
    const done = patchMethod(ky as Record<string, Fn>, name, `ky.${name}`, hooking.why, instanceMaker);
    if (done) hooking.undo.push(done);
  }
}

/**
 * `ky(url)` itself: the default export becomes a wrapper with the same shortcuts, where the module's exports
 * can be set (import-in-the-middle's namespace, which ESM apps and a CommonJS app's `import()` get). A
 * frozen namespace keeps ky as it is: its shortcuts are still hooked.
 */
function hookKyCall(exports: Exports, hooking: Hooking): void {
  if (typeof exports.default !== 'function') return;
  try {
    const done = patchMethod(exports, 'default', 'ky (the default export)', hooking.why, (original: Fn) => {
      const ky = asEntry(original) as Ky;
      for (const key of Object.keys(original)) ky[key] = (original as Ky)[key];
      ky[KY_WRAPPED] = true;
      return ky as Fn;
    });
    if (done) hooking.undo.push(done);
  } catch {
    // a module namespace that cannot be set
  }
}

/** Instances the app makes live and die with it: wrapped in place, off the ledger. */
function instanceMaker(original: Fn): Fn {
  return function (this: unknown) {
    const ky = original.apply(this, arguments as unknown as unknown[]) as Ky;
    if (isKy(ky)) {
      ky[KY_WRAPPED] = true;
      for (const name of KY_METHODS) if (typeof ky[name] === 'function') ky[name] = asEntry(ky[name]);
      for (const name of ['create', 'extend']) if (typeof ky[name] === 'function') ky[name] = instanceMaker(ky[name]);
    }
    return ky;
  };
}

/**
 * got: each call's Options keep the caller's stack (`merge` runs in Options' constructor, inside the app's
 * call); the request function they hand to got's Request runs under it. got exports Options, not Request.
 */
function hookGot(options: Record<string, Fn> | undefined, { why, undo }: Hooking): void {
  if (!options) return;
  const merge = patchMethod(options, 'merge', 'got Options.prototype.merge', why, (original) => {
    const entry = function (this: unknown) {
      markEntry(this, entry);
      return original.apply(this, arguments as unknown as unknown[]);
    };
    return entry;
  });
  if (merge) undo.push(merge);
  for (const name of ['getRequestFunction', 'getFallbackRequestFunction']) {
    const done = patchMethod(
      options,
      name,
      `got Options.prototype.${name}`,
      why,
      (original) =>
        function (this: unknown) {
          const request = original.apply(this, arguments as unknown as unknown[]);
          const marked = markedEntry(this);
          return marked && typeof request === 'function' ? underEntry(request as Fn, marked) : request;
        },
    );
    if (done) undo.push(done);
  }
}

/**
 * got 11: `Request.normalizeArguments`, run inside the app's call (a got.extend() client's too), makes each call's
 * options object, which keeps the caller's stack; `_makeRequest`, after awaits (the body, hooks), and each retry's
 * (a new Request on the same options, from a timer) runs under it
 * (https://github.com/sindresorhus/got/blob/v11.8.6/source/core/index.ts).
 */
function hookGot11(Request: unknown, { why, undo }: Hooking): void {
  if (typeof Request !== 'function' || !Request.prototype) return;
  const normalize = patchMethod(Request as unknown as Record<string, Fn>, 'normalizeArguments', 'got 11 Request.normalizeArguments', why, (original) => {
    const entry = function (this: unknown) {
      const options = original.apply(this, arguments as unknown as unknown[]);
      markEntry(options, entry);
      return options;
    };
    return entry;
  });
  if (normalize) undo.push(normalize);
  const make = patchMethod(Request.prototype as Record<string, Fn>, '_makeRequest', 'got 11 Request.prototype._makeRequest', why, (original) => {
    const entry = function (this: { options?: unknown }) {
      const args = arguments as unknown as unknown[];
      const marked = markedEntry(this?.options);
      return marked ? enterLibrary(() => original.apply(this, args), entry, marked) : original.apply(this, args);
    };
    return entry;
  });
  if (make) undo.push(make);
}

function underEntry(request: Fn, marked: EntryStack): Fn {
  const entry = function (this: unknown) {
    const args = arguments as unknown as unknown[];
    return enterLibrary(() => request.apply(this, args), entry, marked);
  };
  return entry;
}

/** superagent's Request keeps its caller's stack; `request()` (sending and each retry) runs under it. */
function hookSuperagent(exports: Exports, { why, undo }: Hooking): void {
  const Original = exports?.Request as (new (...args: unknown[]) => object) | undefined;
  if (typeof Original !== 'function') return;
  const done = patchMethod(exports, 'Request', 'superagent.Request', why, () => {
    // `new exports.Request(...)` everywhere inside superagent: the constructor is the one place every
    // request (superagent(), its shortcuts, agents) goes through while the app's call is on the stack.
    const Request = function Request(this: unknown, ...args: unknown[]) {
      const request = Reflect.construct(Original, args, new.target && new.target !== Request ? new.target : Original);
      markEntry(request, Request);
      return request;
    } as unknown as Exports;
    Request.prototype = Original.prototype; // instanceof and plugins that extend the prototype keep working
    Object.setPrototypeOf(Request, Original);
    return Request;
  });
  if (done) undo.push(done);
  const send = patchMethod(Original.prototype as Record<string, Fn>, 'request', 'superagent Request.prototype.request', why, (original) => {
    const entry = function (this: unknown) {
      const args = arguments as unknown as unknown[];
      const marked = markedEntry(this);
      return marked ? enterLibrary(() => original.apply(this, args), entry, marked) : original.apply(this, args);
    };
    return entry;
  });
  if (send) undo.push(send);
}

/**
 * Module hooks (require-in-the-middle, and import-in-the-middle for ESM apps) for the libraries above.
 */
export class LibraryEntryInstrumentation extends InstrumentationBase {
  constructor(private readonly probeLogger: Logger) {
    super('probe-library-entries', '0.1.0', {});
  }

  protected init() {
    return LIBRARY_MODULES.map((name) => {
      const hooking: Hooking = { why: `the app's line of calls made after an async hop: ${LIBRARIES[name]!.why}`, undo: [] };
      const files = (LIBRARIES[name]!.files ?? []).map(
        (file) =>
          new InstrumentationNodeModuleFile(
            file.path,
            file.versions,
            (exports: Exports) => {
              try {
                file.hook(exports, hooking);
              } catch (error) {
                this.probeLogger.warnOnce(`entry-${file.path}`, `could not hook ${file.path} for call origins`, error);
              }
              return exports;
            },
            (exports: Exports) => exports,
          ),
      );
      return new InstrumentationNodeModuleDefinition(
        name,
        ['*'],
        (exports: Exports) => {
          try {
            LIBRARIES[name]!.hook(exports, hooking);
          } catch (error) {
            this.probeLogger.warnOnce(`entry-${name}`, `could not hook ${name} for call origins`, error);
          }
          return exports;
        },
        () => {
          while (hooking.undo.length > 0) hooking.undo.pop()!();
        },
        files,
      );
    });
  }
}

/**
 * Not a source of calls of its own: where the app entered got, ky, superagent, Stripe or Anthropic's SDK, for the
 * origin of the calls they make after an async hop (see origin/entry). The fetch lens lists these modules for
 * the ESM loader when it starts it.
 */
export const libraryEntriesLens: LensFactory = ({ config, logger }) =>
  config.http ? { name: 'library entries', scopes: [], instrumentations: [new LibraryEntryInstrumentation(logger)], joins: [], enable: () => () => {} } : null;
