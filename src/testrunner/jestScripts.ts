import path from 'node:path';
import vm from 'node:vm';
import { patchMethod } from '../runtime/patches';
import { noteEvaluatedScript } from '../origin/mapChain';

/** The vm contexts of Probe's Jest environments: only code evaluated in them is looked at. */
const contexts = new WeakSet<object>();
let patched = false;

const MARK = '//# sourceMappingURL=';
const NODE_MODULES = `${path.sep}node_modules${path.sep}`;

/** Whether the file's frames can be an origin at all: not a dependency's (origins skip node_modules). */
const appFile = (file: unknown): file is string => typeof file === 'string' && !file.includes(NODE_MODULES);

const WHY =
  "Jest evaluates the code babel-jest or ts-jest made in the test file's vm context itself (jest-runtime: Script#runInContext in Jest 29, vm.compileFunction in Jest 30), so Node's findSourceMap never sees its inline source map and origins would name the transformed lines (https://github.com/jestjs/jest/blob/v30.0.0/packages/jest-runtime/src/index.ts)";

const WHY_ESM =
  "Jest evaluates a test file it runs as native ESM (--experimental-vm-modules) as a vm.SourceTextModule it makes in the file's vm context (jest-runtime's loadEsmModule), so Node's findSourceMap never sees the inline source map ts-jest or babel-jest left in it and origins would name the transformed lines (https://github.com/jestjs/jest/blob/v30.0.0/packages/jest-runtime/src/index.ts)";

/**
 * Notes the `sourceMappingURL` of every script and ES module Jest evaluates in `context` (a test environment's),
 * so origin frames in transformed test files map back to the lines as written (see origin/mapChain). The vm
 * entry points are wrapped once per process, through the patch ledger; they only look at code bound for a
 * context registered here, and never change what is evaluated.
 */
export function watchJestScripts(context: object | null): void {
  if (!context) return;
  contexts.add(context);
  if (patched) return;
  patched = true;
  patchMethod(
    vm.Script.prototype,
    'runInContext',
    'vm.Script.prototype.runInContext',
    WHY,
    (original) =>
      function (this: vm.Script, target: vm.Context, options?: vm.RunningScriptOptions) {
        try {
          // sourceMapURL: V8 reads the comment when it compiles the script (Node 18.13+).
          const url = (this as { sourceMapURL?: string }).sourceMapURL;
          if (url && contexts.has(target) && appFile(options?.filename)) noteEvaluatedScript(options.filename, url);
        } catch {
          // never in the way of the evaluation
        }
        return original.call(this, target, options);
      },
  );
  patchMethod(
    vm,
    'compileFunction',
    'vm.compileFunction',
    WHY,
    (original) =>
      function (this: unknown, code: string, params?: string[], options?: vm.CompileFunctionOptions) {
        try {
          const target = options?.parsingContext;
          if (target && contexts.has(target) && appFile(options?.filename) && typeof code === 'string') {
            const url = sourceMapUrl(code);
            if (url) noteEvaluatedScript(options.filename, url);
          }
        } catch {
          // never in the way of the evaluation
        }
        return original.call(this, code, params, options);
      } as typeof vm.compileFunction,
  );
  watchSourceTextModules();
}

/**
 * vm.SourceTextModule (there only under `--experimental-vm-modules`) becomes a subclass that notes the module's
 * source map before constructing it as before: Jest reads `vm.SourceTextModule` each time it makes a module.
 */
function watchSourceTextModules(): void {
  patchMethod(vm, 'SourceTextModule', 'vm.SourceTextModule', WHY_ESM, (Original) => {
    if (typeof Original !== 'function') return Original;
    return class SourceTextModule extends Original {
      constructor(code: string, options?: vm.SourceTextModuleOptions) {
        try {
          const target = options?.context;
          if (target && contexts.has(target) && appFile(options?.identifier) && typeof code === 'string') {
            const url = sourceMapUrl(code);
            if (url) noteEvaluatedScript(options.identifier, url);
          }
        } catch {
          // never in the way of the evaluation
        }
        super(code, options);
      }
    };
  });
}

/** The URL of the code's last `//# sourceMappingURL=` comment (searched from the end, where transformers put it), or null. */
function sourceMapUrl(code: string): string | null {
  const at = code.lastIndexOf(MARK);
  if (at < 0) return null;
  const start = at + MARK.length;
  let end = start;
  while (end < code.length && code.charCodeAt(end) > 32) end++;
  return end > start ? code.slice(start, end) : null;
}
