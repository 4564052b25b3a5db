import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { bundleCallAt, matchCall, sourceShapes, tokenize } from '../../src/origin/next/callShapes';
import { namedSources, nextBundleCall, withoutComments } from '../../src/origin/next/nextBundles';

/**
 * A call in a minified Next.js route bundle without a source map, found in the app's source by what minification
 * leaves of it (callShapes, nextBundles). The bundle snippets are cut from real `next build` output of the Next
 * fixture (14.2 and 15.5); the sources are the fixture's own files.
 */

const FIXTURE = path.join(__dirname, '..', 'next', 'apps', 'next-app');
const fixture = (file: string) => ({ file, calls: sourceShapes(fs.readFileSync(path.join(FIXTURE, file), 'utf8')).calls });

/** The 1-based line of a fixture's `// call: name` marker. */
function marker(file: string, name: string): number {
  const lines = fs.readFileSync(path.join(FIXTURE, file), 'utf8').split('\n');
  const index = lines.findIndex((line) => line.includes(`// call: ${name}`));
  assert.ok(index >= 0, `${file} marks ${name}`);
  return index + 1;
}

/** A bundle's offset of the `nth` occurrence of `needle` (where V8's frame points: the callee's name). */
function offsetOf(text: string, needle: string, nth = 1): number {
  let at = -1;
  for (let count = 0; count < nth; count++) at = text.indexOf(needle, at + 1);
  assert.ok(at >= 0, `${needle} in the bundle`);
  return at;
}

// Next 14.2, app router route handler (app/api/items/[id]/route.ts).
const ROUTE_14 =
  'var a=r(9303),o=r(8716),s=r(670),n=r(480);async function p(e,{params:t}){let{id:r}=await t,i=await fetch(`${n.s}/items/${r}`,{cache:"no-store"}),a=await i.json();return Response.json({route:"item",item:a})}let u=new a.AppRouteRouteModule({definition:{kind:o.x.APP_ROUTE,page:"/api/items/[id]/route"}})';
// Next 15.5, pages router API route (pages/api/legacy/[id].ts): lib/upstream.ts concatenated into the module.
const LEGACY_15 =
  '7188:(a,b,c)=>{"use strict";c.r(b),c.d(b,{config:()=>n,default:()=>m,handler:()=>p});var d={};c.r(d),c.d(d,{default:()=>j});let i=process.env.UPSTREAM??"http://127.0.0.1:9";async function j(a,b){let c=await fetch(`${i}/legacy/${a.query.id}`);b.status(200).json({route:"legacy",legacy:await c.json()})}var k=c(8112)';
// Next 15.5, pages router page (pages/old/[id].tsx): one surviving token in the call, so the context counts too.
const OLD_15 =
  'let m=process.env.UPSTREAM??"http://127.0.0.1:9";async function n({params:a}){let b=await fetch(`${m}/old/${a.id}`);return{props:{old:await b.json()}}}function o({old:a}){return(0,l.jsx)("main",{id:"old",children:`old ${a.id}`})}';
// Next 14.2, the actions page's bundle: the server action's module (app/actions/actions.ts, imported by the page).
const ACTION_14 =
  '9008:(e,t,n)=>{"use strict";n.r(t),n.d(t,{save:()=>o});var r=n(4330);n(166);var i=n(480);async function o(e){let t=String(e.get("name")??"");await fetch(`${i.s}/saved/${t}`,{method:"POST",cache:"no-store"})}(0,n(618).h)([o]),(0,r.j)("9eb8f9b172ed450a696cc87c67dd757d075bf227",o)}';

describe('a minified Next.js call found in the app source', { timeout: 60_000 }, () => {
  test('an app-router route handler (Next 14.2): the fetch line of route.ts', () => {
    const file = 'app/api/items/[id]/route.ts';
    assert.deepEqual(matchCall(ROUTE_14, offsetOf(ROUTE_14, 'fetch('), [fixture(file)]), { file, line: marker(file, 'item') });
  });

  test('a pages-router API route (Next 15.5): member names survive, the inlined constant does not matter', () => {
    const file = 'pages/api/legacy/[id].ts';
    assert.deepEqual(matchCall(LEGACY_15, offsetOf(LEGACY_15, 'fetch('), [fixture(file)]), { file, line: marker(file, 'legacy') });
  });

  test('a call with one surviving token is matched with what follows it (props, old)', () => {
    const file = 'pages/old/[id].tsx';
    assert.deepEqual(matchCall(OLD_15, offsetOf(OLD_15, 'fetch('), [fixture(file)]), { file, line: marker(file, 'old') });
  });

  test("a server action's call is found in the module the page imports, among the page's files", () => {
    const candidates = [fixture('app/actions/page.tsx'), fixture('app/layout.tsx'), fixture('app/actions/actions.ts')];
    assert.deepEqual(matchCall(ACTION_14, offsetOf(ACTION_14, 'fetch('), candidates), {
      file: 'app/actions/actions.ts',
      line: marker('app/actions/actions.ts', 'action'),
    });
  });

  test('the same call in the wrong file is no match; another call of the bundle (Response.json) is not the fetch', () => {
    assert.equal(matchCall(ROUTE_14, offsetOf(ROUTE_14, 'fetch('), [fixture('app/cached/route.ts')]), null);
    const json = offsetOf(ROUTE_14, 'json({');
    assert.equal(matchCall(ROUTE_14, json, [fixture('app/api/items/[id]/route.ts')])?.line, 7, 'Response.json of line 7 has its own shape');
  });

  test('two source lines with the same shape: no line (never a guess)', () => {
    const twice = `export async function GET() {\n  await fetch(\`\${A}/items/\${1}\`, { cache: 'no-store' });\n  await fetch(\`\${B}/items/\${2}\`, { cache: 'no-store' });\n}\n`;
    assert.equal(matchCall(ROUTE_14, offsetOf(ROUTE_14, 'fetch('), [{ file: 'x.ts', calls: sourceShapes(twice).calls }]), null);
  });

  test("the bundle holding another call of the same shape (a library's, bundled beside the app's): no line", () => {
    const bundle = `${ROUTE_14};function q(e){return fetch(\`\${e}/items/\${e}\`,{cache:"no-store"})}`;
    assert.equal(matchCall(bundle, offsetOf(bundle, 'fetch('), [fixture('app/api/items/[id]/route.ts')]), null);
  });

  test('a string the minifier made up (a folded constant) is no match; a position that is no call is none', () => {
    const folded = ROUTE_14.replace('${n.s}/items/', 'http://127.0.0.1:9/items/');
    assert.equal(matchCall(folded, offsetOf(folded, 'fetch('), [fixture('app/api/items/[id]/route.ts')]), null);
    assert.equal(matchCall(ROUTE_14, offsetOf(ROUTE_14, 'async'), [fixture('app/api/items/[id]/route.ts')]), null);
    assert.equal(matchCall(ROUTE_14, offsetOf(ROUTE_14, '"no-store"') + 1, [fixture('app/api/items/[id]/route.ts')]), null);
  });

  test('a member call with type arguments and a shorthand key (an API client), V8 pointing inside (0,a.get)(…)', () => {
    const source = [
      "import { api } from '@/lib/client';",
      '',
      'export async function users(page: number) {',
      "  // api.get('/users') in a comment is no call",
      "  const { data } = await api.get<User[]>('/users', { params: { page } });",
      "  return data.filter((user) => /get\\('/.test(user.name));",
      '}',
    ].join('\n');
    const bundle = 'async function u(e){let{data:t}=await (0,s.A.get)("/users",{params:{page:e}});return t.filter(e=>/get\\(\'/.test(e.name))}';
    const shapes = sourceShapes(source);
    assert.deepEqual(shapes.imports, ['@/lib/client']);
    assert.deepEqual(matchCall(bundle, offsetOf(bundle, 'get)') + 1, [{ file: 'lib/users.ts', calls: shapes.calls }]), { file: 'lib/users.ts', line: 5 });
  });

  test('the scanner: templates with nested expressions, strings, comments, regular expressions; imports of every form', () => {
    const texts = tokenize('a(`x${b({c:`y${d}z`})}w`, "q\\"r", /[/]"/g) // fetch("no")\n/* fetch(1) */ e.f')
      .filter((token) => token.kind === 'str')
      .map((token) => token.text);
    assert.deepEqual(texts, ['x', 'y', 'z', 'w', 'q"r']);
    const { imports } = sourceShapes(
      "import a from './a';\nimport './b';\nexport { c } from '../c';\nconst d = require('./d');\nawait import('./e');\nx.from('no');\n",
    );
    assert.deepEqual(imports, ['./a', './b', '../c', './d', './e']);
    assert.equal(bundleCallAt('fetch', 0), null, 'no parenthesis: no call');
  });
});

describe('a Next.js build on disk: the bundle names its sources; imports and tsconfig paths are followed', { timeout: 60_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-next-bundle-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /**
   * A project as Next 15.5's `next build` left it (the bundle's modules cut from its real output: lib/api.ts
   * concatenated into the route's bundle, mangled exports `d.Y`, `(0,v.w)`), built elsewhere (`/build/app`) and
   * copied here: a container image.
   */
  function project(): { root: string; bundle: string } {
    const root = path.join(dir, 'project');
    const write = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    };
    write('tsconfig.json', '{\n  // as create-next-app writes it\n  "compilerOptions": { "paths": { "@/*": ["./*"] }, },\n}\n');
    write('lib/upstream.ts', "export const UPSTREAM = process.env.UPSTREAM ?? 'http://127.0.0.1:9';\n");
    write(
      'app/api/users/[id]/route.ts',
      "import { getUser, listOrders } from '@/lib/api';\n\nexport async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {\n  const { id } = await params;\n  return Response.json({ user: await getUser(id), orders: await listOrders(1) });\n}\n",
    );
    write(
      'lib/api.ts',
      "import { UPSTREAM } from './upstream';\n\nexport async function getUser(id: string) {\n  const response = await fetch(`${UPSTREAM}/users/${id}`, { headers: { accept: 'application/json' } });\n  return response.json();\n}\n\nexport async function listOrders(page: number) {\n  const response = await fetch(`${UPSTREAM}/orders?page=${page}`, { cache: 'no-store' });\n  return response.json();\n}\n",
    );
    write('.next/BUILD_ID', 'x');
    write(
      '.next/required-server-files.json',
      JSON.stringify({ version: 1, appDir: '/build/app', config: { distDir: '.next', pageExtensions: ['tsx', 'ts', 'jsx', 'js'] } }),
    );
    const bundle =
      '"use strict";(()=>{var a={};a.id=1,a.ids=[1],a.modules={228:(a,b,c)=>{"use strict";c.d(b,{Y:()=>d});let d=process.env.UPSTREAM??"http://127.0.0.1:9"},5905:(a,b,c)=>{"use strict";c.d(b,{M:()=>f,w:()=>e});var d=c(228);async function e(a){return(await fetch(`${d.Y}/users/${a}`,{headers:{accept:"application/json"}})).json()}async function f(a){return(await fetch(`${d.Y}/orders?page=${a}`,{cache:"no-store"})).json()}},' +
      '7001:(a,b,c)=>{"use strict";var v=c(5905);async function w(a,{params:b}){let{id:c}=await b;return Response.json({user:await (0,v.w)(c),orders:await (0,v.M)(1)})}let x=new e.AppRouteRouteModule({definition:{kind:f.RouteKind.APP_ROUTE,page:"/api/users/[id]/route",pathname:"/api/users/[id]",filename:"route",bundlePath:"app/api/users/[id]/route"},distDir:".next",relativeProjectDir:"",resolvedPagePath:"/build/app/app/api/users/[id]/route.ts",nextConfigOutput:"",userland:d})}}})();';
    write('.next/server/app/api/users/[id]/route.js', bundle);
    return { root, bundle };
  }

  test('calls in lib/ (imported through @/…) from the route bundle of a moved build: their file and line', () => {
    const { root, bundle } = project();
    assert.deepEqual(namedSources(bundle, '/build/app'), ['app/api/users/[id]/route.ts']);
    const file = path.join(root, '.next', 'server', 'app', 'api', 'users', '[id]', 'route.js');
    const api = path.join(root, 'lib', 'api.ts');
    assert.deepEqual(nextBundleCall(file, 1, offsetOf(bundle, 'fetch(') + 1), { file: api, line: 4 });
    assert.deepEqual(nextBundleCall(file, 1, offsetOf(bundle, 'fetch(', 2) + 1), { file: api, line: 9 });
    // `Response.json({user:…,orders:…})` in route.ts: its keys survive.
    assert.deepEqual(nextBundleCall(file, 1, offsetOf(bundle, 'json({user') + 1), {
      file: path.join(root, 'app', 'api', 'users', '[id]', 'route.ts'),
      line: 5,
    });
    // `(0,v.w)(c)`: the call of getUser through its mangled export name; nothing tells it: no line.
    assert.equal(nextBundleCall(file, 1, offsetOf(bundle, 'v.w)') + 3), null);
    assert.equal(nextBundleCall(file, 2, 1), null, 'no such line');
    assert.equal(nextBundleCall(api, 4, 26), null, 'not a bundle');
  });

  test("tsconfig's comments and trailing commas", () => {
    assert.deepEqual(JSON.parse(withoutComments('{ "a": "//x", /* c */ "b": [1, 2,], }')), { a: '//x', b: [1, 2] });
  });
});
