import { parseArgs } from 'node:util';
import type { CliCommand } from '../io';
import { closeContext, openContext } from '../context';
import { parseSince } from '../../query/since';
import { lastTestRun } from '../../snapshots/lastTestRun';
import { checkRun } from '../../snapshots/checkRun';
import { renderCheck } from '../../snapshots/checkText';
import { SnapshotFileError } from '../../snapshots/snapshotFiles';
import { terminalText } from '../../util/terminalText';

const TRUE = /^(1|true|yes|on)$/i;

/**
 * `probe check [--update] [--ci] [--since D] [--json]`: each test of the last test run against its snapshot
 * (docs/snapshots.md). Exit 0 when every test matches, 1 when one differs, is obsolete, is new under `--ci` (or
 * `CI=1`), or calls a host outside `snapshots.hosts` (`--update` too), 2 on bad input (no test run, a snapshot file
 * that is not one).
 */
export const check: CliCommand = async (argv, io) => {
  const { values } = parseArgs({
    args: argv,
    options: {
      update: { type: 'boolean', short: 'u', default: false },
      ci: { type: 'boolean', default: false },
      since: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const ci = values.ci || TRUE.test(io.env.CI ?? '');
  if (values.update && values.ci) {
    io.err('probe check: --update and --ci go apart: CI checks the snapshots, a person updates them');
    return 2;
  }
  let sinceMs: number | undefined;
  if (values.since !== undefined) {
    try {
      sinceMs = parseSince(values.since) * 1000;
    } catch {
      sinceMs = NaN;
    }
    if (!Number.isFinite(sinceMs) || sinceMs <= 0) {
      io.err(`probe check: --since takes a duration such as 30s, 15m, 2h or 1d, got ${terminalText(JSON.stringify(values.since))}`);
      return 2;
    }
  }
  const context = openContext(io);
  if (!context) return 2;
  try {
    const run = await lastTestRun(context.store, { sinceMs });
    if (run.captures.length === 0) {
      io.err(
        `probe check: no test capture ${values.since !== undefined ? `started in the last ${terminalText(values.since)}` : 'in the store'}: run the tests first (probe run -- npm test)`,
      );
      return 2;
    }
    const result = checkRun(context.config, run, { update: values.update, ci: values.update ? false : ci, since: values.since });
    io.out(values.json ? JSON.stringify(result, null, 2) : renderCheck(result));
    return result.exit;
  } catch (error) {
    if (!(error instanceof SnapshotFileError)) throw error;
    io.err(`probe check: ${terminalText(error.message)}`);
    return 2;
  } finally {
    await closeContext(context);
  }
};
