import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { TestApp } from '../helpers/app';
import { startUpstream, type Upstream } from '../helpers/upstream';
import { nextRouteTemplate } from '../../src/lens/routes/nextRoutes';
import { originalPath } from '../../src/origin/bundleMaps';

let upstream: Upstream;
before(async () => {
  upstream = await startUpstream();
});
after(() => upstream.close());

const CLIENT = `// a comment so the bundled line differs
interface Reply { ok: boolean }

export async function load(base: string): Promise<Reply> {
  const res: Response = await fetch(base + '/json');
  return (await res.json()) as Reply;
}

export function where(): string {
  return String(new Error('here').stack).split('\\n')[1]!.trim();
}
`;
const MAIN = `import { load, where } from './client';

load(process.env.UP as string).then((r) => console.log(JSON.stringify({ ok: r.ok, where: where() })));
`;

/** An esbuild bundle of the two files, minified onto few lines, with its map as `sourcemap` says. */
function bundled(sourcemap: 'external' | 'inline' | 'linked', sources?: (name: string) => string): TestApp {
  const app = new TestApp({ 'src/client.ts': CLIENT, 'src/main.ts': MAIN });
  const outfile = path.join(app.dir, 'dist/main.js');
  buildSync({
    entryPoints: [path.join(app.dir, 'src/main.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    minify: true,
    sourcemap,
    outfile,
    logLevel: 'silent',
  });
  if (sources) {
    const mapFile = `${outfile}.map`;
    const map = JSON.parse(fs.readFileSync(mapFile, 'utf8')) as { sources: string[] };
    map.sources = map.sources.map(sources);
    fs.writeFileSync(mapFile, JSON.stringify(map));
  }
  return app;
}

for (const sourcemap of ['linked', 'inline'] as const) {
  test(`a bundle with a ${sourcemap} source map: origin is the .ts line without --enable-source-maps; the app's own stacks unchanged`, async () => {
    const app = bundled(sourcemap);
    const alone = await app.run('dist/main.js', { preload: 'none', env: { UP: upstream.url } });
    const run = await app.run('dist/main.js', { env: { UP: upstream.url } });
    assert.equal(run.stdout, alone.stdout, 'same output, same error stack frames (still the bundle: source maps stay off)');
    assert.match(JSON.parse(run.stdout).where as string, /dist\/main\.js:\d+/);
    const row = app.captures()[0]!.sections.http![0]!;
    assert.equal(`${row.origin!.file}:${row.origin!.line}`, `${path.join('src', 'client.ts')}:5`);
  });
}

test('webpack and Turbopack source names become app paths, never a path mixing the bundle and the source', async () => {
  const app = bundled('linked', (name) => `webpack://next-app/./${name.replace(/^(\.\.\/)+/, '')}`);
  await app.run('dist/main.js', { env: { UP: upstream.url } });
  const row = app.captures()[0]!.sections.http![0]!;
  assert.equal(`${row.origin!.file}:${row.origin!.line}`, `${path.join('src', 'client.ts')}:5`);
  const root = '/srv/app';
  assert.equal(originalPath('webpack://next-app/./app/api/x/route.ts', '/srv/app/.next/server/app/api/x/route.js', root), '/srv/app/app/api/x/route.ts');
  assert.equal(originalPath('webpack-internal:///(rsc)/./app/page.tsx', 'webpack-internal:///(rsc)/./app/page.tsx', root), '/srv/app/app/page.tsx');
  assert.equal(originalPath('turbopack:///[project]/app/page.tsx', '/srv/app/.next/server/chunks/ssr/x.js', root), '/srv/app/app/page.tsx');
  assert.equal(originalPath('[project]/lib/db.ts', '/srv/app/.next/server/chunks/ssr/x.js', root), '/srv/app/lib/db.ts');
  assert.equal(originalPath('webpack://next-app/webpack/runtime/make namespace object', '/srv/app/.next/server/webpack-runtime.js', root), null);
  assert.equal(originalPath('../src/a.ts', '/srv/app/dist/a.js', root), '/srv/app/src/a.ts');
  // Sources are URLs: Turbopack's production maps (Next.js 16) escape the brackets of dynamic segments.
  assert.equal(originalPath('../../../app/api/items/%5Bid%5D/route.ts', '/srv/app/.next/server/chunks/x.js', root), '/srv/app/app/api/items/[id]/route.ts');
  assert.equal(
    originalPath('turbopack:///[project]/app/%28shop%29/cart/page.tsx', '/srv/app/.next/server/chunks/ssr/x.js', root),
    '/srv/app/app/(shop)/cart/page.tsx',
  );
  assert.equal(originalPath('../src/100%.ts', '/srv/app/dist/a.js', root), '/srv/app/src/100%.ts');
  // A file whose name starts with a bracket is relative to the script like any other (vite-node's map of a Nuxt page).
  assert.equal(originalPath('[id].vue', '/srv/app/pages/users/[id].vue', root), '/srv/app/pages/users/[id].vue');
  assert.equal(originalPath('[...slug]/page.tsx', '/srv/app/dist/docs/x.js', root), '/srv/app/dist/docs/[...slug]/page.tsx');
});

test("Next.js route templates as the app names them, none for Next's own pages", () => {
  assert.equal(nextRouteTemplate({ kind: 'APP_ROUTE', page: '/api/items/[id]/route', pathname: '/api/items/[id]' }), '/api/items/[id]');
  assert.equal(nextRouteTemplate({ kind: 'APP_PAGE', page: '/(shop)/cart/page', pathname: '/cart' }), '/(shop)/cart');
  assert.equal(nextRouteTemplate({ kind: 'APP_PAGE', page: '/page', pathname: '/' }), '/');
  assert.equal(nextRouteTemplate({ kind: 'PAGES', page: '/old/[id]', pathname: '/old/[id]' }), '/old/[id]');
  assert.equal(nextRouteTemplate({ kind: 'PAGES_API', page: '/api/legacy/[id]', pathname: '/api/legacy/[id]' }), '/api/legacy/[id]');
  assert.equal(nextRouteTemplate({ kind: 'APP_PAGE', page: '/_not-found/page', pathname: '/_not-found' }), null);
  assert.equal(nextRouteTemplate({ kind: 'PAGES', page: '/_error', pathname: '/_error' }), null);
  assert.equal(nextRouteTemplate(undefined), null);
});
