import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { TestApp } from '../helpers/app';
import { startUpstream, type Upstream } from '../helpers/upstream';

let upstream: Upstream;
before(async () => {
  upstream = await startUpstream();
});
after(() => upstream.close());

test('a TypeScript app compiled with source maps shows its .ts line', async () => {
  const app = new TestApp({
    'src/client.ts': `// a comment so the compiled line differs
interface Reply { ok: boolean }

export async function load(base: string): Promise<Reply> {
  const res: Response = await fetch(base + '/json');
  return (await res.json()) as Reply;
}
`,
    'src/main.ts': `import { load } from './client';

load(process.env.UP as string).then((r) => console.log(r.ok));
`,
  });
  buildSync({
    entryPoints: [path.join(app.dir, 'src/main.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    sourcemap: true,
    outfile: path.join(app.dir, 'dist/main.js'),
    logLevel: 'silent',
  });
  const run = await app.run('dist/main.js', { env: { UP: upstream.url, NODE_OPTIONS: '--require probe/register --enable-source-maps' } });
  assert.equal(run.stdout.trim(), 'true', run.stderr);
  const row = app.captures()[0]!.sections.http![0]!;
  assert.equal(row.origin!.file, path.join('src', 'client.ts'));
  assert.equal(row.origin!.line, 5);
  assert.match(row.origin!.chain[0]!, /^src\/client\.ts:5/);
});
