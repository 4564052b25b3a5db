// A config file cannot hang or end the app: it is tried first where it cannot stop the app (a worker thread with a
// deadline, before the app's code runs). One that hangs, exits, or throws (at load, from a getter, from register())
// gives one line on stderr and the app runs unrecorded, with the output and exit code it has without Probe; the CLI
// says one line and exits 2. Every CLI failure is one line, no stack. Real apps under the preload, the real CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { TestApp } from '../helpers/app';

const app = `console.log('app ran');
console.error('app says on stderr');
process.exitCode = 5;`;

const CONFIGS: Array<[string, string, string]> = [
  ['hangs at load', 'probe.config.mjs', 'while (true) {}\nexport default {};\n'],
  ['hangs at load (CommonJS)', 'probe.config.js', 'while (true) {}\nmodule.exports = {};\n'],
  ['calls process.exit(3)', 'probe.config.mjs', "console.log('config output');\nprocess.exit(3);\nexport default {};\n"],
  ['has a throwing getter', 'probe.config.mjs', "export default { get storage() { throw new Error('getter boom'); } };\n"],
  ['has a throwing register()', 'probe.config.mjs', "export default { register() { throw new Error('register boom'); } };\n"],
  ['has a register() that hangs', 'probe.config.mjs', 'export default { register() { for (;;) {} } };\n'],
];

for (const [what, file, text] of CONFIGS) {
  test(`a config that ${what}: one line, the app runs unrecorded as without Probe; the CLI says one line and exits 2`, async () => {
    const probed = new TestApp({ 'app.js': app, [file]: text });
    const run = await probed.run('app.js');
    const baseline = await new TestApp({ 'app.js': app, [file]: text }).run('app.js', { preload: 'none' });
    assert.equal(run.code, baseline.code);
    assert.equal(run.code, 5);
    assert.equal(run.stdout, baseline.stdout);
    const lines = run.stderr.split('\n').filter(Boolean);
    assert.equal(lines.length, 2, run.stderr);
    assert.equal(lines.filter((line) => line === 'app says on stderr').length, 1);
    const said = lines.find((line) => line !== 'app says on stderr')!;
    assert.match(said, new RegExp(`^\\[probe\\] bad configuration: ${file.replace('.', '\\.')}: .*\\(the app runs unrecorded\\)$`));
    assert.equal(existsSync(path.join(probed.dir, '.probe')), false, 'nothing recorded');

    const cli = await probed.cli(['list']);
    assert.equal(cli.code, 2, cli.stderr);
    assert.equal(cli.stdout, '');
    assert.equal(cli.stderr.trim().split('\n').length, 1, cli.stderr);
    assert.match(cli.stderr, new RegExp(`^probe: bad configuration: ${file.replace('.', '\\.')}: `));
    assert.doesNotMatch(cli.stderr, /\n\s+at /);
  });
}

test('probe export --out into a missing folder: one line, no stack (the stack under PROBE_DEBUG=1)', async () => {
  const probed = new TestApp({ 'app.js': "fetch('http://127.0.0.1:9/').catch(() => console.log('done'));\n" });
  assert.equal((await probed.run('app.js')).code, 0);
  const listed = await probed.cli(['list', '--json']);
  const id = (JSON.parse(listed.stdout) as { captures: Array<{ id: string }> }).captures[0]!.id;
  const out = await probed.cli(['export', id, '--har', '--out', '/missing/dir/x.har']);
  assert.notEqual(out.code, 0);
  assert.equal(out.stderr.trim().split('\n').length, 1, out.stderr);
  assert.match(out.stderr, /^probe export: .*\/missing\/dir\/x\.har/);
  const debug = await probed.cli(['export', id, '--har', '--out', '/missing/dir/x.har'], { env: { PROBE_DEBUG: '1' } });
  assert.match(debug.stderr, /\n\s+at /);
});
