import { createRequire } from 'node:module';

/**
 * The fixture builds into a folder per variant (NEXT_DIST), so one install serves `next dev` and `next start`,
 * with and without server source maps (NEXT_SERVER_MAPS=1 or 0; unset for Next's default). NEXT_INSTRUMENTATION=1
 * for the variant that starts Probe from instrumentation.ts (copied in by the test): the settings the README
 * gives for it, Probe kept out of the bundle (Next 14: also its instrumentation hook switched on).
 */
const instrumented = process.env.NEXT_INSTRUMENTATION === '1';
const next14 = createRequire(import.meta.url)('next/package.json').version.startsWith('14.');

export default {
  distDir: process.env.NEXT_DIST || '.next',
  eslint: { ignoreDuringBuilds: true },
  typescript: { ignoreBuildErrors: true },
  ...(instrumented && !next14 ? { serverExternalPackages: ['probe'] } : {}),
  experimental: {
    // Unset: Next's default (off with webpack; Next 16's Turbopack writes them).
    ...(process.env.NEXT_SERVER_MAPS ? { serverSourceMaps: process.env.NEXT_SERVER_MAPS === '1' } : {}),
    ...(instrumented && next14 ? { instrumentationHook: true, serverComponentsExternalPackages: ['probe'] } : {}),
  },
};
