/**
 * The fixture builds into a folder per variant (NEXT_DIST), so one install serves `next dev` and `next start`,
 * with and without server source maps (NEXT_SERVER_MAPS=1 or 0; unset for Next's default).
 */
export default {
  distDir: process.env.NEXT_DIST || '.next',
  eslint: { ignoreDuringBuilds: true },
  typescript: { ignoreBuildErrors: true },
  // Unset: Next's default (off with webpack; Next 16's Turbopack writes them).
  experimental: process.env.NEXT_SERVER_MAPS ? { serverSourceMaps: process.env.NEXT_SERVER_MAPS === '1' } : {},
};
