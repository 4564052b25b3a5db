import type { CheckResult, CheckedTest } from './checkRun';
import { callText, changeLines } from '../diff/diffText';
import { terminalLines, terminalText } from '../util/terminalText';

/** `probe check`'s text for people (the same data as `--json`), in `probe diff`'s words for each call. */
export function renderCheck(result: CheckResult): string {
  const out = [runLine(result), ''];
  for (const test of result.tests) {
    if (test.outside) {
      for (const call of test.outside)
        out.push(`✗ ${quoted(test.name)} calls a host outside snapshots.hosts: ${terminalText(call.url)}${call.line ? `  ${terminalText(call.line)}` : ''}`);
    }
    if (test.verdict === 'matches') continue;
    out.push(...testLines(test, result));
  }
  if (result.without_file.length)
    out.push(`${result.without_file.length} test${result.without_file.length === 1 ? '' : 's'} not checked: their runner does not name their file`);
  const c = result.counts;
  const total = c.matches + c.differs + c.new;
  out.push(
    `${total} test${total === 1 ? '' : 's'}: ${c.matches} match, ${c.differs} differ, ${c.new} new, ${c.obsolete} obsolete` +
      `${c.outside ? `, ${c.outside} calling another host (allowed: ${result.hosts.map((host) => terminalText(host)).join(', ') || 'none'})` : ''}`,
  );
  if (result.updated) {
    for (const file of result.written) out.push(`wrote ${terminalText(file)}`);
    for (const file of result.removed) out.push(`removed ${terminalText(file)}`);
    if (!result.written.length && !result.removed.length) out.push('snapshots up to date: nothing written');
  } else if (c.differs || c.obsolete || c.new) {
    out.push(`${c.new && result.ci ? 'new tests fail under CI; ' : ''}probe check --update writes the snapshots as the run made them`);
  }
  if (c.outside) out.push('a test calling a host outside snapshots.hosts fails the check, --update too: its snapshot is not written');
  return terminalLines(out);
}

function runLine(result: CheckResult): string {
  const run = result.run;
  const when =
    run.started_at !== null
      ? ` started ${new Date(run.started_at * 1000)
          .toISOString()
          .replace('T', ' ')
          .replace(/\.\d+Z$/, ' UTC')}`
      : '';
  const what =
    run.source === 'since'
      ? `test captures of the last ${terminalText(run.since ?? '')}`
      : run.source === 'probe run'
        ? `the last test run: probe run ${terminalText(run.id ?? '')}`
        : `the last test run: process group ${terminalText(run.id ?? '')}`;
  return `${what}${when}, ${run.tests} test capture${run.tests === 1 ? '' : 's'}`;
}

function quoted(name: string): string {
  return terminalText(JSON.stringify(name));
}

function testLines(test: CheckedTest, result: CheckResult): string[] {
  const where = `${terminalText(test.file)} → ${terminalText(test.snapshot_file)}`;
  if (test.verdict === 'new') {
    const written = result.updated && !test.outside;
    return [`+ new ${quoted(test.name)}  (${where})${written ? ': written' : ''}`, ''];
  }
  const diff = test.diff;
  const head = test.verdict === 'obsolete' ? `- obsolete ${quoted(test.name)}: no such test ran` : `✗ differs ${quoted(test.name)}`;
  const out = [`${head}  (${where})${result.updated ? (test.verdict === 'obsolete' ? ': removed' : test.outside ? '' : ': written') : ''}`];
  if (diff) {
    for (const call of diff.removed) out.push(`  - removed ${callText(call)}`);
    for (const call of diff.added) out.push(`  + added   ${callText(call)}`);
    for (const change of diff.changed) out.push(...changeLines(change).map((line) => `  ${line}`));
  }
  out.push('');
  return out;
}
