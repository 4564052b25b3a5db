import type { Store } from '../capture/Store';
import type { Capture, HttpRow } from '../capture/types';
import { serviceOf } from '../capture/indexRow';

/** One capture of a flow: a service's request (or the unit that started the flow) and its calls. */
export interface FlowNode {
  id: string;
  service: string | null;
  type: string;
  name: string;
  status: string;
  duration: number;
  started_at: number;
  /** On the critical path: the chain of captures and calls the flow's end waited for. */
  critical: boolean;
  calls: FlowCall[];
  /** Calls past those listed (a capture with many calls keeps the critical ones and those that link). */
  more_calls?: number;
}

export interface FlowCall {
  row: number;
  method: string;
  url: string;
  status: number | null;
  duration: number | null;
  /** When it started, ms from its capture's start. */
  time: number;
  /** The app's line that made it, `file:line`. */
  line: string | null;
  critical: boolean;
  /** The capture the service that answered made of it, when recorded and linked. */
  answered_by?: string;
  /** That capture, as a node of the tree (missing when it has left the store, or the tree is cut). */
  answer?: FlowNode;
}

export interface FlowResult {
  /** The capture asked for. */
  id: string;
  /** The first capture of the flow (the one nothing recorded caused). */
  root: FlowNode;
  captures: number;
  services: string[];
  note?: string;
}

/** Bounds on the walk: a flow deeper or wider than this is cut and says so. */
const MAX_DEPTH = 32;
const MAX_CAPTURES = 200;
/** Calls listed per capture: the critical and the linked ones always, then the first others. */
const CALLS_PER_CAPTURE = 20;

/**
 * The tree of captures across services that `id` belongs to: up through `caused_by` to the first capture, then
 * down through every call's `answered_by`. Reads at most MAX_CAPTURES captures; each once.
 */
export async function buildFlow(store: Store, id: string): Promise<FlowResult | null> {
  const start = await store.find(id);
  if (!start) return null;
  let top = start;
  const up = new Set([top.id]);
  while (top.caused_by && up.size < MAX_DEPTH) {
    const parent = await store.find(top.caused_by.capture);
    if (!parent || up.has(parent.id)) break;
    up.add(parent.id);
    top = parent;
  }
  const seen = new Set<string>();
  let cut = false;
  const nodeOf = async (capture: Capture, depth: number): Promise<FlowNode> => {
    seen.add(capture.id);
    const rows = capture.sections?.http ?? [];
    const critical = criticalRows(rows);
    const node: FlowNode = {
      id: capture.id,
      service: serviceOf(capture),
      type: capture.type,
      name: capture.name,
      status: capture.status,
      duration: capture.duration,
      started_at: capture.started_at,
      critical: false,
      calls: [],
    };
    const listed = rows
      .map((row, index) => ({ row, index }))
      .filter(({ row, index }, order) => critical.has(index) || row.answered_by || order < CALLS_PER_CAPTURE);
    if (listed.length < rows.length) node.more_calls = rows.length - listed.length;
    for (const { row, index } of listed) {
      const call = callOf(row, index, critical.has(index));
      if (row.answered_by) {
        if (depth >= MAX_DEPTH || seen.size >= MAX_CAPTURES || seen.has(row.answered_by)) cut = cut || !seen.has(row.answered_by);
        else {
          const answer = await store.find(row.answered_by);
          // Linked both ways: a capture that does not name this call as its cause is not shown under it.
          if (answer && answer.caused_by?.capture === capture.id && answer.caused_by.row === index) call.answer = await nodeOf(answer, depth + 1);
        }
      }
      node.calls.push(call);
    }
    return node;
  };
  const root = await nodeOf(top, 0);
  markCritical(root);
  const services = new Set<string>();
  const visit = (node: FlowNode) => {
    if (node.service) services.add(node.service);
    for (const call of node.calls) if (call.answer) visit(call.answer);
  };
  visit(root);
  return {
    id,
    root,
    captures: seen.size,
    services: [...services],
    ...(cut ? { note: `The flow is cut at ${MAX_CAPTURES} captures or ${MAX_DEPTH} levels.` } : {}),
  };
}

function callOf(row: HttpRow, index: number, critical: boolean): FlowCall {
  return {
    row: index,
    method: row.method,
    url: row.url,
    status: row.status,
    duration: row.duration,
    time: row.time,
    line: row.origin ? `${row.origin.file}:${row.origin.line}` : null,
    critical,
    ...(row.answered_by ? { answered_by: row.answered_by } : {}),
  };
}

/**
 * The calls a capture's end waited for: from the call that ended last, back through the call that ended last before
 * it started, and so on (calls in series; of calls made at once, the slowest). Sorted once: n log n.
 */
export function criticalRows(rows: readonly HttpRow[]): Set<number> {
  const ends = rows.map((row, index) => ({ index, start: row.time, end: row.time + (row.duration ?? 0) })).sort((a, b) => b.end - a.end || a.index - b.index);
  const out = new Set<number>();
  let before = Infinity;
  for (const call of ends) {
    if (call.end > before) continue;
    out.add(call.index);
    before = call.start;
  }
  return out;
}

/** Marks the root and, down the tree, each answer of a critical call. */
function markCritical(node: FlowNode): void {
  node.critical = true;
  for (const call of node.calls) if (call.critical && call.answer) markCritical(call.answer);
}
