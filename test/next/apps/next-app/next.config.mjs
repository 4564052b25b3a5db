/**
 * The fixture builds into a folder per variant (NEXT_DIST), so one install serves `next dev` and `next start`,
 * with and without server source maps (NEXT_SERVER_MAPS=1).
 */
export default {
  distDir: process.env.NEXT_DIST || '.next',
  eslint: { ignoreDuringBuilds: true },
  typescript: { ignoreBuildErrors: true },
  experimental: { serverSourceMaps: process.env.NEXT_SERVER_MAPS === '1' },
};
