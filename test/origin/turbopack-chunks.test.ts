import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { nextBundleCall } from '../../src/origin/next/nextBundles';
import { loadedChunks, projectPaths } from '../../src/origin/next/turbopackChunks';

/**
 * A call in a chunk of a Turbopack production build (Next 16's `next build`: numeric module ids, no paths, no
 * maps), found in the sources of the routes whose entries load the chunk. The chunks and entries are cut from
 * real Next 16.4 output of the Next fixture; the sources are the fixture's own files.
 */

const FIXTURE = path.join(__dirname, '..', 'next', 'apps', 'next-app');

// server/app/(shop)/cart/page.js: the entry lists the chunks the route loads.
const CART_ENTRY =
  'var R=require("../../../chunks/ssr/[turbopack]_runtime.js")("server/app/(shop)/cart/page.js")\nR.c("server/chunks/ssr/[root-of-the-server]__0s8glr5em0em5._.js")\nR.c("server/chunks/ssr/node_modules_next_dist_0vn8q0im74u1u._.js")\nR.m(13526)\nmodule.exports=R.m(13526).exports\n';
// The cart page's module and lib/upstream.ts, beside Next's externals: no path names the page.
const CART_CHUNK =
  'module.exports=[14747,(a,b,c)=>{b.exports=a.x("path",()=>require("path"))},95838,a=>{"use strict";var b=a.i(7997),c=a.i(38554);async function d(){let a=await fetch(`${c.f}/cart`,{cache:"no-store"}),d=await a.json();return(0,b.jsx)("main",{id:"cart",children:`cart ${d.count}`})}a.s(["default",0,d,"dynamic",0,"force-dynamic"])},95128,function(a){a.n(a.i(95838))},38554,a=>{"use strict";let b=process.env.UPSTREAM??"http://127.0.0.1:9";a.s(["f",0,b])}];\n';
// Next's own client-router code in a chunk the same route loads: its fetch is Next's, not the app's.
const NEXT_CHUNK =
  'module.exports=[1234,a=>{"use strict";function z(a,b){if(null===q)return fetch(a,b);let c=q;return c.released.then(()=>(0,c.fetch)(a,b))}a.s(["z",0,z])}];';
// server/app/actions/page.js and the chunk of its server action (app/actions/actions.ts), named by the
// server-reference manifest.
const ACTIONS_ENTRY =
  'var R=require("../../chunks/ssr/[turbopack]_runtime.js")("server/app/actions/page.js")\nR.c("server/chunks/ssr/_1_6jfs5gw5kg8._.js")\nR.m(52310)\nmodule.exports=R.m(52310).exports\n';
const ACTION_CHUNK =
  'module.exports=[21249,a=>{"use strict";var b=a.i(28446);a.S([b,"401ab0748e20cd6e51414f88f63b5aa20833115c4c,f"],21249)},28446,a=>{"use strict";var b=a.i(37936),c=a.i(38554);async function d(a){let b=String(a.get("name")??"");await fetch(`${c.f}/saved/${b}`,{method:"POST",cache:"no-store"})}(0,a.i(13095).ensureServerEntryExports)([d]),(0,b.registerServerReference)(d,"401ab0748e20cd6e51414f88f63b5aa20833115c4c",null),a.s(["f",0,d])}];';
const ACTIONS_MANIFEST = {
  node: {
    '401ab0748e20cd6e51414f88f63b5aa20833115c4c': {
      workers: { 'app/actions/page': { moduleId: 21249, async: false } },
      filename: 'app/actions/actions.ts',
      exportedName: 'save',
    },
  },
};
// server/pages/api/legacy/[id].js: the pages router's API route, its module inside Next's own API template.
const LEGACY_ENTRY =
  'var R=require("../../../chunks/[turbopack]_runtime.js")("server/pages/api/legacy/[id].js")\nR.c("server/chunks/[root-of-the-server]__14f88_ol420f-._.js")\nR.m(80746)\nmodule.exports=R.m(80746).exports\n';
const LEGACY_CHUNK =
  'module.exports=[80746,e=>{"use strict";function ea(e,t){return t in e?e[t]:"then"in e&&"function"==typeof e.then?e.then(e=>ea(e,t)):"function"==typeof e&&"default"===t?e:void 0}let eo=process.env.UPSTREAM??"http://127.0.0.1:9";async function ei(e,t){let r=await fetch(`${eo}/legacy/${e.query.id}`);t.status(200).json({route:"legacy",legacy:await r.json()})}e.s(["default",0,ei],76679);var es=e.i(76679);let eu=ea(es,"default")}];';
// A route chunk that names its route module (`resolvedPagePath`), loaded by no entry listed here.
const ITEM_CHUNK =
  'module.exports=[2624,e=>{"use strict";var t=e.i(39948);async function r(e,{params:a}){let{id:n}=await a,i=await fetch(`${t.f}/items/${n}`,{cache:"no-store"}),o=await i.json();return Response.json({route:"item",item:o})}e.s(["GET",0,r])},10139,e=>{"use strict";let x=new t.AppRouteRouteModule({definition:{kind:r.f.APP_ROUTE,page:"/api/items/[id]/route",pathname:"/api/items/[id]",filename:"route",bundlePath:""},distDir:".next-build",relativeProjectDir:"",resolvedPagePath:"[project]/app/api/items/[id]/route.ts",nextConfigOutput:"",userland:()=>e.r(2624),...{}})}];';

/** The 1-based line of a fixture's `// call: name` marker. */
function marker(file: string, name: string): number {
  const lines = fs.readFileSync(path.join(FIXTURE, file), 'utf8').split('\n');
  const index = lines.findIndex((line) => line.includes(`// call: ${name}`));
  assert.ok(index >= 0, `${file} marks ${name}`);
  return index + 1;
}

/** The 1-based column of the `nth` occurrence of `needle` on a one-line chunk (where V8's frame points). */
function columnOf(text: string, needle: string, nth = 1): number {
  let at = -1;
  for (let count = 0; count < nth; count++) at = text.indexOf(needle, at + 1);
  assert.ok(at >= 0, `${needle} in the chunk`);
  return at + 1;
}

describe('a call in a Turbopack production chunk found in the sources of the routes that load it', { timeout: 60_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-turbopack-chunks-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The fixture with a Turbopack build as Next 16.4 leaves it (the parts these tests read), built elsewhere and copied. */
  function project(name: string, turbopack = true): { root: string; chunk: (file: string) => string } {
    const root = path.join(dir, name);
    fs.cpSync(FIXTURE, root, { recursive: true });
    const write = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, '.next-build', file)), { recursive: true });
      fs.writeFileSync(path.join(root, '.next-build', file), text);
    };
    write('BUILD_ID', 'x');
    write(
      'required-server-files.json',
      JSON.stringify({ version: 1, appDir: '/build/app', config: { distDir: '.next-build', pageExtensions: ['tsx', 'ts', 'jsx', 'js'] } }),
    );
    write(
      'server/app-paths-manifest.json',
      JSON.stringify({
        '/(shop)/cart/page': 'app/(shop)/cart/page.js',
        '/actions/page': 'app/actions/page.js',
        '/api/items/[id]/route': 'app/api/items/[id]/route.js',
      }),
    );
    write('server/pages-manifest.json', JSON.stringify({ '/api/legacy/[id]': 'pages/api/legacy/[id].js', '/404': 'pages/404.html' }));
    write('server/server-reference-manifest.json', JSON.stringify(ACTIONS_MANIFEST));
    write('server/app/(shop)/cart/page.js', CART_ENTRY);
    write('server/app/actions/page.js', ACTIONS_ENTRY);
    write(
      'server/app/api/items/[id]/route.js',
      'var R=require("../../../../chunks/[turbopack]_runtime.js")("server/app/api/items/[id]/route.js")\nR.m(10139)\n',
    );
    write('server/pages/api/legacy/[id].js', LEGACY_ENTRY);
    if (turbopack) {
      write('server/chunks/[turbopack]_runtime.js', 'module.exports=()=>{};');
      write('server/chunks/ssr/[turbopack]_runtime.js', 'module.exports=()=>{};');
    }
    write('server/chunks/ssr/[root-of-the-server]__0s8glr5em0em5._.js', CART_CHUNK);
    write('server/chunks/ssr/node_modules_next_dist_0vn8q0im74u1u._.js', NEXT_CHUNK);
    write('server/chunks/ssr/_1_6jfs5gw5kg8._.js', ACTION_CHUNK);
    write('server/chunks/[root-of-the-server]__14f88_ol420f-._.js', LEGACY_CHUNK);
    write('server/chunks/_0k7potmeqwg29._.js', ITEM_CHUNK);
    return { root, chunk: (file) => path.join(root, '.next-build', 'server', 'chunks', ...file.split('/')) };
  }

  test("an app page's call in a shared chunk that names no path: the route whose entry loads it (cart)", () => {
    const { root, chunk } = project('cart');
    const file = 'app/(shop)/cart/page.tsx';
    const found = nextBundleCall(chunk('ssr/[root-of-the-server]__0s8glr5em0em5._.js'), 1, columnOf(CART_CHUNK, 'fetch('));
    assert.deepEqual(found, { file: path.join(root, file), line: marker(file, 'cart') });
  });

  test("a server action's call: the file the server-reference manifest names for the page", () => {
    const { root, chunk } = project('action');
    const file = 'app/actions/actions.ts';
    assert.deepEqual(nextBundleCall(chunk('ssr/_1_6jfs5gw5kg8._.js'), 1, columnOf(ACTION_CHUNK, 'fetch(')), {
      file: path.join(root, file),
      line: marker(file, 'action'),
    });
  });

  test("a pages-router API route inside Next's template, and a route module the chunk names ([project]/…)", () => {
    const { root, chunk } = project('pages');
    const legacy = 'pages/api/legacy/[id].ts';
    assert.deepEqual(nextBundleCall(chunk('[root-of-the-server]__14f88_ol420f-._.js'), 1, columnOf(LEGACY_CHUNK, 'fetch(')), {
      file: path.join(root, legacy),
      line: marker(legacy, 'legacy'),
    });
    const item = 'app/api/items/[id]/route.ts';
    assert.deepEqual(nextBundleCall(chunk('_0k7potmeqwg29._.js'), 1, columnOf(ITEM_CHUNK, 'fetch(')), {
      file: path.join(root, item),
      line: marker(item, 'item'),
    });
  });

  test("Next's own call in a chunk the route loads is no line; nor a one-letter callee; nor a webpack build's chunk", () => {
    const { chunk } = project('own');
    assert.equal(nextBundleCall(chunk('ssr/node_modules_next_dist_0vn8q0im74u1u._.js'), 1, columnOf(NEXT_CHUNK, 'fetch(')), null);
    // `a.get("name")` is the action's own `formData.get('name')`, but `(0,a.i(13095)…)` is a renamed callee of Next's.
    assert.equal(nextBundleCall(chunk('ssr/_1_6jfs5gw5kg8._.js'), 1, columnOf(ACTION_CHUNK, 'i(13095)')), null);
    const webpack = project('webpack', false);
    assert.equal(nextBundleCall(webpack.chunk('ssr/[root-of-the-server]__0s8glr5em0em5._.js'), 1, columnOf(CART_CHUNK, 'fetch(')), null);
  });

  test('what an entry and a chunk name: the chunks loaded, the project paths', () => {
    assert.deepEqual(loadedChunks(CART_ENTRY), [
      'server/chunks/ssr/[root-of-the-server]__0s8glr5em0em5._.js',
      'server/chunks/ssr/node_modules_next_dist_0vn8q0im74u1u._.js',
    ]);
    assert.deepEqual(projectPaths(ITEM_CHUNK), ['app/api/items/[id]/route.ts']);
    assert.deepEqual(projectPaths('"[project]/app/page.tsx [app-rsc] (ecmascript)","[project]/node_modules/x/y.js"'), ['app/page.tsx']);
  });
});
