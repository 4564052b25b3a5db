import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../../helpers/app';
import { runChild } from '../../helpers/child';
import { CLIENT_TS, MAIN_TS, TSCONFIG } from './app';
import { installMatrix, setupFolder } from './install';
import { assertOrigins, capturedRows, oracleLines } from './oracle';

// PROBE_ORIGIN_DIST: another build's dist/ (to see the test fail on a Probe without the fix).
const REGISTER = path.join(path.resolve(process.env.PROBE_ORIGIN_DIST ?? path.join(REPO_ROOT, 'dist')), 'register.js');

interface Setup {
  name: string;
  /** Files beside the app's src/. */
  files?: Record<string, string>;
  /** Commands run once before (a build), each `[command, ...args]`, node's own for `node`. */
  build?: string[][];
  /** How the app runs: node's arguments. */
  run: string[];
  env?: Record<string, string>;
  /**
   * How the oracle runs, when not as `run` (the setup maps its own stacks then: the app's output under Probe must
   * be the same): node's arguments, e.g. with `--enable-source-maps` for a bundle.
   */
  oracle?: string[];
}

const BABEL_REGISTER = `require('@babel/register')({
  extensions: ['.ts'],
  presets: [['@babel/preset-env', { targets: { node: 'current' } }], '@babel/preset-typescript'],
});
`;

/** A require hook nobody lists: pirates and TypeScript's transpileModule with an inline map, no stack mapping of its own. */
const OWN_HOOK = `const { addHook } = require('pirates');
const ts = require('typescript');
addHook(
  (code, filename) =>
    ts.transpileModule(code, { fileName: filename, compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, inlineSourceMap: true } }).outputText,
  { exts: ['.ts'] },
);
`;

/**
 * A module runner of the app's own, in no list: each module transformed by TypeScript's transpileModule with an
 * inline map and evaluated from a string (indirect eval, as module runners do with new Function) under a
 * `//# sourceURL=` naming its file; no Node compile point sees that code.
 */
const OWN_EVAL_RUNNER = `const ts = require('typescript');
const fs = require('fs');
const path = require('path');
const loaded = new Map();
function load(file) {
  if (loaded.has(file)) return loaded.get(file).exports;
  const module = { exports: {} };
  loaded.set(file, module);
  const code = ts.transpileModule(fs.readFileSync(file, 'utf8'), {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, inlineSourceMap: __MAPS__ },
  }).outputText;
  const local = (name) => (name.startsWith('.') ? load(path.resolve(path.dirname(file), name) + path.extname(file)) : require(name));
  (0, eval)('(function (exports, require, module) {' + code + '\\n})\\n//# sourceURL=' + file)(module.exports, local, module);
  return module.exports;
}
load(path.resolve(fs.existsSync('src/main.ts') ? 'src/main.ts' : 'src/main.js'));
`;

const WEBPACK_BUILD = `const webpack = require('webpack');
const path = require('path');
webpack(
  {
    mode: 'production',
    target: 'node',
    devtool: 'source-map',
    entry: './src/main.ts',
    output: { path: path.resolve('dist'), filename: 'main.js' },
    resolve: { extensions: ['.ts', '.js'] },
    module: { rules: [{ test: /\\.ts$/, loader: 'ts-loader', options: { transpileOnly: true } }] },
  },
  (error, stats) => {
    if (error || stats.hasErrors()) {
      console.error(error ?? stats.toString());
      process.exit(1);
    }
  },
);
`;

/** webpack as `next dev` runs it: each module an eval with its map inline, named `webpack-internal:///…`. */
const WEBPACK_DEV_BUILD = WEBPACK_BUILD.replace("mode: 'production'", "mode: 'development'").replace("devtool: 'source-map'", "devtool: 'eval-source-map'");

/**
 * The app, its call followed in the same turn by what `next dev` does after a compilation of any route: the bundle
 * taken out of require.cache and written anew on disk (NextJsRequireCacheHotReloader). Origins are read on a
 * later turn: from the code that ran.
 */
const RECOMPILED_MAIN = MAIN_TS.replace(
  'const reply = await load(`http://127.0.0.1:${port}`);',
  'const pending = load(`http://127.0.0.1:${port}`);\n  (globalThis as { afterCall?: () => void }).afterCall?.();\n  const reply = await pending;',
);
const RECOMPILED_RUN = `const fs = require('fs');
const path = require('path');
const bundle = path.resolve('dist/main.js');
globalThis.afterCall = () => {
  delete require.cache[bundle];
  fs.writeFileSync(bundle, '// written anew by a later compilation\\n');
};
require(bundle);
`;

const ESBUILD_BUILD = `require('esbuild').buildSync({ entryPoints: ['src/main.ts'], bundle: true, platform: 'node', sourcemap: true, outfile: 'dist/main.js', logLevel: 'warning' });
`;

/** rollup over tsc's output (its maps not read): the bundle's map points at build/tsc/, whose maps point at src/. */
const rollupBuild = (sourcemap: boolean | 'hidden') => `const { rollup } = require('rollup');
require('fs').writeFileSync('build/tsc/package.json', '{"type":"module"}');
rollup({ input: 'build/tsc/main.js', external: ['node:http'] })
  .then((bundle) => bundle.write({ file: 'dist/main.js', format: 'cjs', sourcemap: ${JSON.stringify(sourcemap)} }))
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });
`;

/** tsc to ES modules (rollup bundles those; Node runs them for the oracle, with the \`type\` rollupBuild gives the folder). */
const TSC = ['../../node_modules/typescript/bin/tsc', '-p', '.', '--module', 'es2022'];
/** The app importing \`./client.js\`, as ES modules run by Node must. */
const ESM_MAIN = { 'src/main.ts': MAIN_TS.replace("'./client'", "'./client.js'") };
/** The tsc output run with Node's own mapping: the oracle of a chain whose last link is tsc's map. */
const TSC_ORACLE = ['--enable-source-maps', 'build/tsc/main.js'];

const SETUPS: Setup[] = [
  { name: 'ts-node', run: ['-r', 'ts-node/register', 'src/main.ts'] },
  { name: 'ts-node-transpile-only', run: ['-r', 'ts-node/register', 'src/main.ts'], env: { TS_NODE_TRANSPILE_ONLY: '1' } },
  { name: 'tsx', run: ['--import', 'tsx', 'src/main.ts'] },
  { name: 'swc-node', run: ['-r', '@swc-node/register', 'src/main.ts'] },
  {
    name: 'babel-register',
    files: { 'register.js': BABEL_REGISTER },
    run: ['-r', './register.js', 'src/main.ts'],
    oracle: ['--enable-source-maps', '-r', './register.js', 'src/main.ts'],
  },
  { name: 'esbuild-register', run: ['-r', 'esbuild-register', 'src/main.ts'] },
  {
    name: 'own-require-hook',
    files: { 'hook.js': OWN_HOOK },
    run: ['-r', './hook.js', 'src/main.ts'],
    oracle: ['--enable-source-maps', '-r', './hook.js', 'src/main.ts'],
  },
  {
    name: 'own-eval-runner',
    files: { 'runner.js': OWN_EVAL_RUNNER.replace('__MAPS__', 'true') },
    run: ['runner.js'],
    oracle: ['--enable-source-maps', 'runner.js'],
  },
  {
    name: 'esbuild-bundle',
    files: { 'build.js': ESBUILD_BUILD },
    build: [['build.js']],
    run: ['dist/main.js'],
    oracle: ['--enable-source-maps', 'dist/main.js'],
  },
  {
    name: 'webpack-bundle',
    files: { 'build.js': WEBPACK_BUILD },
    build: [['build.js']],
    run: ['dist/main.js'],
    oracle: ['--enable-source-maps', 'dist/main.js'],
  },
  { name: 'rollup-over-tsc', files: { 'build.js': rollupBuild(true), ...ESM_MAIN }, build: [TSC, ['build.js']], run: ['dist/main.js'], oracle: TSC_ORACLE },
  {
    name: 'rollup-hidden-map',
    files: { 'build.js': rollupBuild('hidden'), ...ESM_MAIN },
    build: [TSC, ['build.js']],
    run: ['dist/main.js'],
    oracle: TSC_ORACLE,
  },
];

/** node with `args` in `dir`; Probe preloaded or not. */
async function node(dir: string, args: string[], env: Record<string, string> = {}, probe = false): Promise<string> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, NODE_OPTIONS: probe ? `--require ${REGISTER}` : '' };
  for (const key of ['PROBE_ROOT', 'PROBE_CONFIG', 'PROBE_STORAGE', 'PROBE_ENABLED']) delete childEnv[key];
  const result = await runChild(process.execPath, args, { cwd: dir, env: childEnv });
  assert.equal(result.code, 0, `node ${args.join(' ')} failed in ${dir}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

describe('origin through transformers and bundles: equal to the line the setup itself maps an Error at the call to', { timeout: 900_000 }, () => {
  let installed: string;
  before(async () => {
    installed = await installMatrix();
  });

  for (const setup of SETUPS) {
    it(setup.name, async () => {
      const dir = setupFolder(installed, setup.name, { 'src/client.ts': CLIENT_TS, 'src/main.ts': MAIN_TS, 'tsconfig.json': TSCONFIG, ...setup.files });
      for (const [command, ...args] of setup.build ?? []) await node(dir, [command!, ...args]);
      const plain = await node(dir, setup.oracle ?? setup.run, setup.env);
      const [oracle] = oracleLines(plain, dir);
      assert.ok(oracle?.startsWith(path.join('src', 'client.ts')), `the setup maps its own stack to src/: ${plain}`);
      const probed = await node(dir, setup.run, setup.env, true);
      assert.match(probed, /REPLY true/);
      // The app's own stacks are the same with Probe (where the oracle is the app run as it is).
      if (!setup.oracle) assert.equal(probed, plain);
      assertOrigins(capturedRows(dir), '/json', oracle, probed);
    });
  }

  // Node's own type stripping keeps every position (types become blanks): the file's line is the line, with no map.
  const strips = Boolean((process.features as { typescript?: unknown }).typescript);
  it(
    "Node's own type stripping: the .ts file's line, no map needed",
    { skip: strips ? false : `Node ${process.version} does not run TypeScript` },
    async () => {
      const dir = setupFolder(installed, 'node-strip-types', {
        'src/client.ts': CLIENT_TS,
        'src/main.ts': MAIN_TS.replace("from './client'", "from './client.ts'"),
      });
      const plain = await node(dir, ['src/main.ts']);
      const [oracle] = oracleLines(plain, dir);
      assert.ok(oracle?.startsWith(path.join('src', 'client.ts')), plain);
      const probed = await node(dir, ['src/main.ts'], {}, true);
      assert.equal(probed, plain);
      assertOrigins(capturedRows(dir), '/json', oracle, probed);
    },
  );

  it('a webpack dev bundle (eval-source-map) taken out of require.cache and written anew right after the call, as `next dev` does after any compilation: the line of the code that ran', async () => {
    const dir = setupFolder(installed, 'webpack-dev-recompiled', {
      'src/client.ts': CLIENT_TS,
      'src/main.ts': RECOMPILED_MAIN,
      'tsconfig.json': TSCONFIG,
      'build.js': WEBPACK_DEV_BUILD,
      'run.js': RECOMPILED_RUN,
    });
    assert.ok(RECOMPILED_MAIN.includes('afterCall'));
    await node(dir, ['build.js']);
    const plain = await node(dir, ['--enable-source-maps', 'run.js']);
    const [oracle] = oracleLines(plain, dir);
    assert.ok(oracle?.startsWith(path.join('src', 'client.ts')), `Node maps the eval module to src/: ${plain}`);
    await node(dir, ['build.js']);
    const probed = await node(dir, ['run.js'], {}, true);
    assert.match(probed, /REPLY true/);
    assertOrigins(capturedRows(dir), '/json', oracle, probed);
  });

  it('a module runner that evaluates transformed code with no map: origin null, never the evaluated line under the source name', async () => {
    const dir = setupFolder(installed, 'eval-runner-without-map', {
      'src/client.ts': CLIENT_TS,
      'src/main.ts': MAIN_TS,
      'runner.js': OWN_EVAL_RUNNER.replace('__MAPS__', 'false'),
    });
    const probed = await node(dir, ['runner.js'], {}, true);
    assert.match(probed, /REPLY true/);
    const rows = capturedRows(dir).filter((row) => new URL(row.url).pathname === '/json');
    assert.equal(rows.length, 1, probed);
    assert.equal(rows[0]!.origin, null);
  });

  it('the same runner on JavaScript sources (its CommonJS output moves every line): origin null, not the evaluated line', async () => {
    // The app as JavaScript ES modules: the runner's CommonJS header moves every line below it.
    const js = (code: string) => ts.transpileModule(code, { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 } }).outputText;
    const dir = setupFolder(installed, 'eval-runner-js-without-map', {
      'src/client.js': js(CLIENT_TS),
      'src/main.js': js(MAIN_TS),
      'runner.js': OWN_EVAL_RUNNER.replace('__MAPS__', 'false'),
    });
    const probed = await node(dir, ['runner.js'], {}, true);
    assert.match(probed, /REPLY true/);
    const rows = capturedRows(dir).filter((row) => new URL(row.url).pathname === '/json');
    assert.equal(rows.length, 1, probed);
    assert.equal(rows[0]!.origin, null);
  });

  it('a require hook that leaves no map: origin null, never the transformed line under the source name', async () => {
    const dir = setupFolder(installed, 'hook-without-map', {
      'src/client.ts': CLIENT_TS,
      'src/main.ts': MAIN_TS,
      'hook.js': OWN_HOOK.replace('inlineSourceMap: true', 'inlineSourceMap: false'),
    });
    const probed = await node(dir, ['-r', './hook.js', 'src/main.ts'], {}, true);
    assert.match(probed, /REPLY true/);
    const rows = capturedRows(dir).filter((row) => new URL(row.url).pathname === '/json');
    assert.equal(rows.length, 1, probed);
    assert.equal(rows[0]!.origin, null);
  });
});
