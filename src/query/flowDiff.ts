import type { Store } from '../capture/Store';
import { diffCaptures } from '../diff/diffCaptures';
import type { DiffResult, DiffThreshold } from '../diff/Diff';
import { buildFlow, type FlowNode } from '../flows/flowTree';
import { findCapture } from './locate';
import { thresholdOf } from './diff';
import { diffLines } from '../diff/diffText';
import { terminalLines } from '../util/terminalText';

/** One service's part of a flow diff: its captures in the order the two trees reach them, paired, and their diff. */
export interface ServiceDiff {
  service: string;
  before: string | null;
  after: string | null;
  diff?: DiffResult;
}

export interface FlowDiffResult {
  same: boolean;
  before: string;
  after: string;
  services: ServiceDiff[];
}

/**
 * `probe diff <before> <after> --flow`: the flows the two captures belong to, compared service by service. In each
 * tree the captures are taken in the order the tree reaches them (its first capture, then down each call in turn);
 * a service's n-th capture before is compared with its n-th after; one that only one side has is said.
 */
export async function queryFlowDiff(store: Store, input: { before: string; after: string; threshold?: Partial<DiffThreshold> }): Promise<FlowDiffResult> {
  const threshold = thresholdOf(input.threshold);
  await findCapture(store, input.before);
  await findCapture(store, input.after);
  const [before, after] = await Promise.all([buildFlow(store, input.before), buildFlow(store, input.after)]);
  const sides = [byService(before!.root), byService(after!.root)] as const;
  const services: ServiceDiff[] = [];
  for (const service of new Set([...sides[0].keys(), ...sides[1].keys()])) {
    const was = sides[0].get(service) ?? [];
    const now = sides[1].get(service) ?? [];
    for (let i = 0; i < Math.max(was.length, now.length); i++) {
      const entry: ServiceDiff = { service, before: was[i] ?? null, after: now[i] ?? null };
      if (entry.before && entry.after) entry.diff = diffCaptures(await findCapture(store, entry.before), await findCapture(store, entry.after), { threshold });
      services.push(entry);
    }
  }
  return { same: services.every((entry) => entry.diff?.same === true), before: before!.root.id, after: after!.root.id, services };
}

function byService(root: FlowNode): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const visit = (node: FlowNode) => {
    const name = node.service ?? '(unnamed)';
    out.set(name, [...(out.get(name) ?? []), node.id]);
    for (const call of node.calls) if (call.answer) visit(call.answer);
  };
  visit(root);
  return out;
}

export function renderFlowDiff(result: FlowDiffResult): string {
  const lines = [`flow of ${result.before} → flow of ${result.after}`, ''];
  for (const entry of result.services) {
    if (!entry.diff) {
      lines.push(`[${entry.service}] ${entry.before ? `only before: ${entry.before}` : `only after: ${entry.after}`}`, '');
      continue;
    }
    lines.push(`[${entry.service}] ${entry.diff.same ? 'same' : 'different'}`);
    for (const line of diffLines(entry.diff)) lines.push(line ? `  ${line}` : '');
  }
  lines.push(`${result.services.length} service captures compared: ${result.same ? 'same' : 'different'}`);
  return terminalLines(lines);
}
