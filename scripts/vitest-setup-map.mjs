// dist/vitest.mjs is a Vitest setup file, which Vite loads with its source map: the map names src/vitest.mts,
// which the package does not ship, and Vite warns about it in the app's test output. The file is a few lines:
// it goes without a map.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const file = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..', 'dist', 'vitest.mjs');
if (existsSync(file)) {
  writeFileSync(file, readFileSync(file, 'utf8').replace(/\n\/\/# sourceMappingURL=.*\n?$/, '\n'));
  rmSync(`${file}.map`, { force: true });
}
