import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { matchCall, sourceShapes } from '../../src/origin/next/callShapes';

/**
 * A bundle call whose callee webpack renamed (an imported library's default export `(0,o.default)(…)`, an app
 * function reached through its mangled export `(0,v.w)(…)`) found in the source by its arguments' shape, only when
 * those arguments keep enough and a string of theirs is written once in the bundle. The bundles are written as
 * Next 15.5's webpack minifies such modules.
 */

const SOURCE = [
  "import got from 'got';",
  "import { UPSTREAM } from '@/lib/upstream';",
  "import { getUser } from '@/lib/api';",
  '',
  'export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {',
  '  const { id } = await params;',
  "  const profile = await got(`${UPSTREAM}/profiles/${id}`, { responseType: 'json' }).json();",
  '  const user = await getUser(`/users/${id}`, { page: 1 });',
  '  return Response.json({ profile, user, plain: await fetch(UPSTREAM).then((r) => r.text()) });',
  '}',
].join('\n');
const sources = [{ file: 'app/api/users/[id]/route.ts', calls: sourceShapes(SOURCE).calls }];

const BUNDLE =
  '7001:(a,b,c)=>{"use strict";c.r(b),c.d(b,{GET:()=>w});var o=c.n(c(3392)),d=c(228),v=c(5905);async function w(a,{params:b}){let{id:c}=await b,e=await (0,o.default)(`${d.Y}/profiles/${c}`,{responseType:"json"}).json(),f=await (0,v.w)(`/users/${c}`,{page:1});return Response.json({profile:e,user:f,plain:await fetch(d.Y).then(a=>a.text())})}}';

/** The offset of the callee's name in the bundle (where V8's frame points): the name after `needle`. */
function calleeAt(text: string, needle: string): number {
  const at = text.indexOf(needle);
  assert.ok(at >= 0, `${needle} in the bundle`);
  return at + needle.length;
}

describe('a call through a renamed callee matched by its arguments', { timeout: 60_000 }, () => {
  test("a library's default export, (0,o.default)(…): the got(…) line", () => {
    assert.deepEqual(matchCall(BUNDLE, calleeAt(BUNDLE, '(0,o.'), sources), { file: sources[0]!.file, line: 7 });
  });

  test('an app function through its mangled export, (0,v.w)(…): the getUser(…) line', () => {
    assert.deepEqual(matchCall(BUNDLE, calleeAt(BUNDLE, '(0,v.'), sources), { file: sources[0]!.file, line: 8 });
  });

  test("the bundle writing the call's strings twice (a library's call alike): no line", () => {
    const twice = `${BUNDLE};function q(a){return (0,v.w)(\`/users/\${a}\`,{page:2})}`;
    assert.equal(matchCall(twice, calleeAt(twice, '(0,v.'), sources), null);
  });

  test('two source calls of the same arguments, or arguments that keep too little: no line', () => {
    const doubled = [{ file: 'a.ts', calls: sourceShapes('load(`/users/${a}`, { page });\nsave(`/users/${b}`, { page });\n').calls }];
    assert.equal(matchCall(BUNDLE, calleeAt(BUNDLE, '(0,v.'), doubled), null);
    const bare = 'async function w(a){return (0,v.w)(a)}';
    assert.equal(matchCall(bare, calleeAt(bare, '(0,v.'), [{ file: 'a.ts', calls: sourceShapes('getUser(id);\n').calls }]), null);
  });

  test('a member call is no renamed candidate: text.split(…) is not load(…)', () => {
    const bundle = 'function f(a){return a.xy("/only/here","x-key")}';
    const members = [{ file: 'a.ts', calls: sourceShapes('thing.split("/only/here", "x-key");\n').calls }];
    assert.equal(matchCall(bundle, calleeAt(bundle, 'a.'), members), null);
    const plain = [{ file: 'a.ts', calls: sourceShapes('split("/only/here", "x-key");\n').calls }];
    assert.deepEqual(matchCall(bundle, calleeAt(bundle, 'a.'), plain), { file: 'a.ts', line: 1 });
  });
});
