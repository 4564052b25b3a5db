import type { FlowCall, FlowNode, FlowResult } from './flowTree';
import { terminalLines, terminalText } from '../util/terminalText';

const ms = (value: number | null | undefined) => (typeof value === 'number' ? `${Math.round(value * 10) / 10}ms` : '-');
const inline = (value: unknown) => terminalText(String(value ?? '-').replace(/\s+/g, ' '));

/**
 * `probe show <id> --flow` for people: one line per capture (service, name, status, duration, id) and per call
 * (method, URL, status, duration, code line) indented under what made it; `*` marks the critical path.
 */
export function renderFlow(result: FlowResult): string {
  const lines = [
    `flow of ${result.captures} ${result.captures === 1 ? 'capture' : 'captures'} across ${result.services.length} ${result.services.length === 1 ? 'service' : 'services'} (* critical path)`,
  ];
  const node = (flow: FlowNode, depth: number) => {
    const pad = '  '.repeat(depth * 2);
    const here = flow.id === result.id ? '  <- this capture' : '';
    lines.push(
      `${pad}${flow.critical ? '*' : ' '} [${inline(flow.service)}] ${inline(flow.name)}  ${inline(flow.status)}  ${ms(flow.duration)}  ${flow.id}${here}`,
    );
    for (const call of flow.calls) callLine(call, depth, flow.critical);
    if (flow.more_calls) lines.push(`${pad}    … ${flow.more_calls} more calls`);
  };
  const callLine = (call: FlowCall, depth: number, onPath: boolean) => {
    const pad = `${'  '.repeat(depth * 2)}  `;
    const mark = onPath && call.critical ? '*' : ' ';
    const answered = call.answer ? '' : call.answered_by ? `  -> ${call.answered_by} (not in the store)` : '';
    lines.push(
      `${pad}${mark} ${inline(call.method)} ${inline(call.url)}  ${call.status ?? 'failed'}  ${ms(call.duration)}  ${call.line ? inline(call.line) : '(no line)'}${answered}`,
    );
    if (call.answer) node(call.answer, depth + 1);
  };
  node(result.root, 0);
  if (result.note) lines.push(result.note);
  return terminalLines(lines);
}
