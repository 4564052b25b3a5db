import path from 'node:path';
import type { FrameRule } from './FrameRule';

const NODE_MODULES = `${path.sep}node_modules${path.sep}`;

/**
 * A package's code, wherever it ran: a script in node_modules is never asked (origin.ts leaves those out before
 * reading maps), so this catches a package bundled into the app's build output whose map leads back to its
 * source in node_modules (SvelteKit's runtime in `.svelte-kit/output/server/index.js` built with maps, a Nitro
 * or Next.js chunk, a webpack bundle of a server).
 */
export const nodeModulesRule: FrameRule = {
  name: 'a file in node_modules, after maps',
  judge: (frame) => (frame.file.includes(NODE_MODULES) ? 'library' : undefined),
};
