// `npm run pack`: the release tarball, `probe-http-<version>.tgz`, from the built checkout.
//   node scripts/pack.mjs [--pack-destination DIR]     prints the tarball's path
// The checkout's `prepare` script (the build, which a git install needs) is left out of the packed manifest:
// npm lists a tarball's `prepare` among the install scripts to review, though it never runs for a built tarball.
// The manifest is rewritten in a staging copy, never in the checkout, so packs running at once cannot race.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { values } = parseArgs({ options: { 'pack-destination': { type: 'string' } } });
const destination = path.resolve(values['pack-destination'] ?? root);

if (!existsSync(path.join(root, 'dist', 'register.js'))) {
  console.error('pack: dist/ is missing; run `npm run build` first');
  process.exit(1);
}
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
delete manifest.scripts.prepare;
delete manifest.devDependencies;

const staging = mkdtempSync(path.join(os.tmpdir(), 'probe-pack-stage-'));
try {
  writeFileSync(path.join(staging, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  for (const name of ['README.md', 'LICENSE', 'dist', 'docs', 'otel-collector.yaml']) {
    if (existsSync(path.join(root, name))) cpSync(path.join(root, name), path.join(staging, name), { recursive: true });
  }
  const packed = spawnSync('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', destination, staging], {
    encoding: 'utf8',
  });
  if (packed.status !== 0) {
    console.error(`pack: npm pack failed: ${(packed.stderr || packed.stdout).trim().split('\n').pop()}`);
    process.exit(1);
  }
  console.log(path.join(destination, packed.stdout.trim().split('\n').pop()));
} finally {
  rmSync(staging, { recursive: true, force: true });
}
