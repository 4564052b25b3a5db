// ESLint (flat config): type-aware typescript-eslint rules on every TypeScript file, run by `npm run lint` and
// inside `npm test`. Formatting is Prettier's job (.prettierrc.json), so no stylistic rules here.
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  // Built, cached (.cache/test-node_modules links back to the checkout), vendored or generated.
  globalIgnores([
    'dist/',
    '.cache/',
    'test/next/apps/',
    'test/frames/apps/',
    '**/.probe/',
    'bench/.exp/',
    'src/collector/proto/',
    'src/collector/otlpProtoSources.ts',
  ]),
  {
    // The code carries directives for typescript-eslint rules not switched on here (no-explicit-any, no-require-imports).
    linterOptions: { reportUnusedDisableDirectives: 'off' },
  },
  {
    files: ['**/*.{ts,mts,cts}'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        // The Node code and its tests share tsconfig.test.json; the browser UI has its own (DOM lib, bundler resolution).
        project: ['./tsconfig.test.json', './src/dashboard/ui/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      // A promise nobody awaits or catches becomes an unhandled rejection in the host app.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          // node:test reports a failing test itself; the promise test()/describe() return never rejects.
          allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] }],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // Type-only imports are marked, so they vanish from the emitted JavaScript.
      '@typescript-eslint/consistent-type-imports': [
        'error',
        // `typeof import('redis')` beside a lazy import() types what is loaded only when used.
        { prefer: 'type-imports', fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      '@typescript-eslint/consistent-type-exports': 'error',
    },
  },
);
