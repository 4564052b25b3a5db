import type { FrameFacts, FrameRule } from './FrameRule';
import { nextBundlesRule } from './nextBundles';
import { nitroOutputRule } from './nitroOutput';
import { nodeModulesRule } from './nodeModules';
import { svelteKitOutputRule } from './svelteKitOutput';
import { thirdPartyMapRule } from './thirdPartyMap';
import { webpackInternalRule } from './webpackInternal';

/**
 * The frame rules, asked in order (see FrameRule.ts). The general rules first (a package's code, wherever its map
 * leads or whatever its map says of its sources), then the layouts of build output that carry no map to tell whose code a file is.
 */
export const FRAME_RULES: readonly FrameRule[] = [
  nodeModulesRule,
  thirdPartyMapRule,
  webpackInternalRule,
  nextBundlesRule,
  svelteKitOutputRule,
  nitroOutputRule,
];

/** The frame's verdict: null for a library's frame, else the app position it stands for. */
export function judgeFrame(frame: FrameFacts): { file: string; line: number } | null {
  for (const rule of FRAME_RULES) {
    const verdict = rule.judge(frame);
    if (verdict === undefined) continue;
    if (verdict === 'library') return null;
    return verdict === 'app' ? { file: frame.file, line: frame.line } : verdict;
  }
  return { file: frame.file, line: frame.line };
}
