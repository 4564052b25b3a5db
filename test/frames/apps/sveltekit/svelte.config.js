import adapter from '@sveltejs/adapter-node';

// FRAMES_OUT names the build (one per variant: with and without maps), so both stay built side by side.
const name = process.env.FRAMES_OUT ?? 'build';
export default { kit: { adapter: adapter({ out: name }), outDir: `.svelte-kit-${name}` } };
