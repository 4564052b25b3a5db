import { isWebpackInternal, webpackInternalPath } from '../bundleMaps';
import type { FrameRule } from './FrameRule';

/** A module of a webpack dev bundle (`eval-source-map`) whose map was not found: named after its source file. */
export const webpackInternalRule: FrameRule = {
  name: "a webpack-internal module's own name, when no map is found",
  judge(frame) {
    if (frame.mapped || !isWebpackInternal(frame.script)) return undefined;
    const file = webpackInternalPath(frame.script, frame.root);
    return file ? { file, line: frame.line } : undefined;
  },
};
