// FRAMES_OUT names the build (one per variant), so both stay built side by side.
export default { ssr: true, buildDirectory: process.env.FRAMES_OUT ?? 'build' };
