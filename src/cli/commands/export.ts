import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { CliCommand } from '../io';
import { closeContext, openContext } from '../context';
import { QueryError } from '../../query/QueryError';
import { findCapture, newestCapture } from '../../query/locate';
import { harOf } from '../../export/har';
import { packageVersion } from '../../util/packageVersion';

const HELP = `usage: probe export [id] [--har] [--out FILE]

Writes a capture's outgoing HTTP calls as HAR 1.2 (HTTP Archive), for browser DevTools, proxies and HAR
viewers. Values Probe masked stay masked; bodies are those the capture kept (raw bodies only with the
\`bodies\` option); timings come from each call's dns, connect, tls, wait and download.

  id           capture id (see \`probe list\`); default: the newest capture with HTTP calls
  --har        HAR 1.2 (the default and only format)
  --out FILE   write to FILE instead of stdout
  -h, --help   this text`;

/** `probe export <id> --har`: a capture's calls as a HAR file. */
export const exportCapture: CliCommand = async (argv, io) => {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      har: { type: 'boolean' },
      out: { type: 'string', short: 'o' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    io.out(HELP);
    return 0;
  }
  if (positionals.length > 1) {
    io.err(`probe export: one capture id at a time (got ${positionals.length})\n\n${HELP}`);
    return 2;
  }
  const context = openContext(io);
  if (!context) return 2;
  try {
    const id = positionals[0];
    const capture = id ? await findCapture(context.store, id) : await newestCapture(context.store, await context.store.index(), (row) => (row.counts.http ?? 0) > 0);
    if (!capture) {
      io.err('probe export: no capture with HTTP calls in the store');
      return 2;
    }
    const har = JSON.stringify(harOf([capture], packageVersion()), null, 2);
    if (values.out) {
      const file = path.resolve(io.cwd, values.out);
      writeFileSync(file, har + '\n');
      io.err(`probe export: ${capture.id} (${capture.name}): ${capture.sections.http?.length ?? 0} calls written to ${file}`);
    } else {
      io.out(har);
    }
    return 0;
  } catch (error) {
    if (!(error instanceof QueryError)) throw error;
    io.err(`probe export: ${error.message}`);
    return 2;
  } finally {
    await closeContext(context);
  }
};
