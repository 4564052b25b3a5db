import { defineNitroConfig } from 'nitropack/config';

// FRAMES_SOURCEMAP=1: server source maps on; otherwise Nitro's default. FRAMES_OUT: the output folder.
export default defineNitroConfig({
  output: { dir: process.env.FRAMES_OUT ?? '.output' },
  ...(process.env.FRAMES_SOURCEMAP === '1' ? { sourceMap: true } : process.env.FRAMES_SOURCEMAP === '0' ? { sourceMap: false } : {}),
});
