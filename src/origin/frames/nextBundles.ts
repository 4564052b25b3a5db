import { isBundledRuntime } from '../bundleMaps';
import { nextBundleCall } from '../next/nextBundles';
import type { FrameRule } from './FrameRule';

/**
 * Next.js server builds without maps (Next 14 and 15's `next build` default). The shared chunks of a build
 * (`<distDir>/server/chunks/`, `vendor-chunks/`, webpack's runtime: Next's own fetch wrapper, React) are Next's,
 * but for a Turbopack build's chunk (Next 16), which holds the app's modules too: the app's line when the call is
 * found in the sources of the routes that load the chunk. A route bundle: the app's line when its call is found
 * in the route's sources (next/nextBundles), else the bundle's own line.
 */
export const nextBundlesRule: FrameRule = {
  name: 'Next.js server bundles and chunks without maps',
  judge(frame) {
    if (frame.mapped) return undefined;
    if (isBundledRuntime(frame.script)) return (!frame.hasMap && nextBundleCall(frame.script, frame.line, frame.column)) || 'library';
    if (frame.hasMap) return undefined;
    return nextBundleCall(frame.script, frame.line, frame.column) ?? undefined;
  },
};
