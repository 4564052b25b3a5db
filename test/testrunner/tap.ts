/**
 * The tests a `node --test --test-reporter=tap` run reported, by name path (`suite > case`, subtests included) and
 * whether each passed: node:test's own verdicts. Suites (`type: 'suite'` in their report) are left out.
 */
export function tapResults(tap: string): Map<string, boolean> {
  return new Map([...tapPaths(tap)].map(([path, passed]) => [path.join(' > '), passed]));
}

/** The tests of a TAP report as tapResults reads them, each by its name path as an array (names kept whole). */
export function tapPaths(tap: string): Array<[string[], boolean]> {
  const results: Array<[string[], boolean]> = [];
  const names: string[] = [];
  const lines = tap.split('\n');
  for (let at = 0; at < lines.length; at++) {
    const subtest = /^( *)# Subtest: (.*)$/.exec(lines[at]!);
    if (subtest) {
      names.length = subtest[1]!.length / 4;
      names.push(subtest[2]!);
      continue;
    }
    const result = /^( *)(not )?ok \d+ - (.*?)( # (SKIP|TODO).*)?$/.exec(lines[at]!);
    if (!result || result[4]) continue;
    const depth = result[1]!.length / 4;
    const path = [...names.slice(0, depth), result[3]!];
    // The report's YAML block, up to its `...`: a suite says so.
    let suite = false;
    for (let next = at + 1; next < lines.length && lines[next]!.trim() !== '...'; next++) {
      if (lines[next]!.trim() === "type: 'suite'") suite = true;
      if (/^ *(not )?ok \d+ /.test(lines[next]!)) break;
    }
    if (!suite) results.push([path, !result[2]]);
  }
  return results;
}

/** A TAP report without what changes from run to run (durations). */
export function tapReport(tap: string): string {
  return tap.replace(/^( *(# )?duration_ms:? ).*$/gm, '$1…');
}
