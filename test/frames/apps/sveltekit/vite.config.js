import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';

// FRAMES_SOURCEMAP=1: `build.sourcemap`, the maps SvelteKit's docs tell users to turn on.
export default defineConfig({ plugins: [sveltekit()], build: { sourcemap: process.env.FRAMES_SOURCEMAP === '1' } });
