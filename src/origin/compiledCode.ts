import path from 'node:path';
import vm from 'node:vm';
import Module from 'node:module';
import { patchMethod } from '../util/patches';
import fs from 'node:fs';
import { noteCompiledWithoutMap, noteEvaluatedScript, noteEvaluatedWithoutMap } from './mapChain';
import { mappingUrl } from './maps/readMap';
import { noteCompiledBundle } from './maps/webpackEval';
import { MAX_CODE_BYTES, readSafeText } from '../util/safeRead';

/**
 * The places where code that is not a file's text on disk gets compiled under that file's name, watched for the
 * `sourceMappingURL` the code carries: one general mechanism for every transformer and test runner, instead of
 * code per tool. Only the URL is noted (an inline `data:` URL is a part of the code string V8 keeps anyway); the
 * map is read at the first origin frame in that script (maps/evaluatedScripts). Nothing evaluated is changed.
 */

const NODE_MODULES = `${path.sep}node_modules${path.sep}`;

/** Whether a script's frames can be an origin at all: not a dependency's (origins skip node_modules). */
const appScript = (name: unknown): name is string => typeof name === 'string' && name.length > 0 && !name.includes(NODE_MODULES);

const WHY_COMPILE =
  'A require hook (ts-node, @babel/register, @swc-node/register, esbuild-register, sucrase, anything built on pirates) hands Module#_compile the code it made, with its inline source map; Node caches that map only while source maps are enabled (https://github.com/nodejs/node/blob/v22.0.0/lib/internal/modules/cjs/loader.js, maybeCacheSourceMap), which Probe leaves to the app';

const WHY_VM =
  "Test runners and module runners evaluate the code they transformed themselves, through node:vm (Jest's jest-runtime: Script#runInContext in Jest 29, vm.compileFunction in Jest 30; vite-node's runInThisContext in Vitest 3), so Node's findSourceMap never sees the inline map (https://github.com/jestjs/jest/blob/v30.0.0/packages/jest-runtime/src/index.ts, https://github.com/vitest-dev/vitest/blob/v3.2.4/packages/vite-node/src/client.ts)";

const WHY_ESM =
  'Jest evaluates a test file it runs as native ESM (--experimental-vm-modules) as a vm.SourceTextModule it makes itself, so Node never sees the inline map of the code it transformed (https://github.com/jestjs/jest/blob/v30.0.0/packages/jest-runtime/src/index.ts, loadEsmModule)';

let watching = false;

/** Watches every compile point, once per process, through the patch ledger (undone at shutdown). */
export function watchCompiledCode(): void {
  if (watching) return;
  watching = true;
  const proto = (Module as unknown as { prototype: { _compile?: (content: string, filename: string, ...rest: unknown[]) => unknown } }).prototype;
  patchMethod(proto, '_compile', 'Module.prototype._compile', WHY_COMPILE, (original) =>
    original
      ? function (this: unknown, content: string, filename: string, ...rest: unknown[]) {
          if (note(filename, content) === false) noteCompiledWithoutMap(filename, content, readText);
          if (appScript(filename)) noteCompiledBundle(filename, this, content);
          return original.call(this, content, filename, ...rest);
        }
      : original,
  );
  const script = vm.Script.prototype as unknown as Record<'runInThisContext' | 'runInContext' | 'runInNewContext', (...args: unknown[]) => unknown>;
  for (const method of ['runInThisContext', 'runInContext', 'runInNewContext'] as const) {
    // runInThisContext(options), runInContext(context, options), runInNewContext(context, options)
    const at = method === 'runInThisContext' ? 0 : 1;
    patchMethod(
      script,
      method,
      `vm.Script.prototype.${method}`,
      WHY_VM,
      (original) =>
        function (this: vm.Script, ...args: unknown[]) {
          try {
            const filename = (args[at] as { filename?: unknown } | undefined)?.filename;
            // sourceMapURL: V8 reads the comment when it compiles the script (Node 18.13+).
            const url = (this as { sourceMapURL?: unknown }).sourceMapURL;
            if (appScript(filename)) {
              if (typeof url === 'string' && url) noteEvaluatedScript(filename, url);
              else noteEvaluatedWithoutMap(filename);
            }
          } catch {
            // never in the way of the evaluation
          }
          return original.apply(this, args);
        },
    );
  }
  patchMethod(
    vm,
    'compileFunction',
    'vm.compileFunction',
    WHY_VM,
    (original) =>
      function (this: unknown, code: string, params?: string[], options?: vm.CompileFunctionOptions) {
        if (note(options?.filename, code) === false) noteEvaluatedWithoutMap(options!.filename!);
        return original.call(this, code, params, options);
      } as typeof vm.compileFunction,
  );
  watchSourceTextModules();
}

const readText = (file: string): string => readSafeText(file, { maxBytes: MAX_CODE_BYTES, follow: true });

/** Notes the code's map comment, for an app script: whether it had one (undefined: not an app script). Never throws. */
function note(filename: unknown, code: unknown): boolean | undefined {
  try {
    if (typeof code !== 'string' || !appScript(filename)) return undefined;
    const url = mappingUrl(code);
    if (url) noteEvaluatedScript(filename, url);
    return url !== null && url !== '';
  } catch {
    return undefined; // never in the way of the evaluation
  }
}

/**
 * vm.SourceTextModule (there only under `--experimental-vm-modules`) becomes a subclass that notes the module's
 * source map before constructing it as before: Jest reads `vm.SourceTextModule` each time it makes a module.
 */
function watchSourceTextModules(): void {
  patchMethod(
    vm as unknown as { SourceTextModule?: new (code: string, options?: vm.SourceTextModuleOptions) => object },
    'SourceTextModule',
    'vm.SourceTextModule',
    WHY_ESM,
    (Original) => {
      if (typeof Original !== 'function') return Original;
      return class SourceTextModule extends Original {
        constructor(code: string, options?: vm.SourceTextModuleOptions) {
          if (note(options?.identifier, code) === false) noteEvaluatedWithoutMap(options!.identifier!);
          super(code, options);
        }
      };
    },
  );
}
