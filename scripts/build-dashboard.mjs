// Builds the dashboard's browser assets (src/dashboard/ui) into dist/dashboard/assets with esbuild:
// one ES module bundle (preact + htm + the UI), one stylesheet, the icon. Nothing is fetched at run time.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..');
const ui = path.join(root, 'src', 'dashboard', 'ui');
const out = path.join(root, 'dist', 'dashboard', 'assets');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

await build({
  // main.ts imports styles.css, so esbuild writes app.js and app.css.
  entryPoints: { app: path.join(ui, 'main.ts') },
  outdir: out,
  bundle: true,
  format: 'esm',
  target: ['chrome110', 'firefox110', 'safari16'],
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  entryNames: '[name]',
});
copyFileSync(path.join(ui, 'favicon.svg'), path.join(out, 'favicon.svg'));
