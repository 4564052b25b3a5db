#!/usr/bin/env node
import type { CliCommand } from './io';
import { processIo } from './io';
import { commandHelp, wantsHelp } from './help';
import { storeFailure } from './storeFailure';
import { closestKey } from '../config/suggest';
import { packageVersion } from '../util/packageVersion';
import { messageOf } from '../config/loadFailure';
import { terminalText } from '../util/terminalText';

const debugOn = () => Boolean(process.env.PROBE_DEBUG) && process.env.PROBE_DEBUG !== '0';

/** Each command lives in its own file and is loaded only when run, so `probe list` never loads the dashboard. */
const COMMANDS: Record<string, { summary: string; load: () => CliCommand }> = {
  run: {
    summary: 'run a command with Probe preloaded in it and its Node children, and the dashboard while it runs',
    load: () => require('./commands/run').run,
  },
  install: { summary: 'write probe.config.mjs and ignore .probe/ (--mcp: register the MCP server)', load: () => require('./commands/install').install },
  list: {
    summary: 'recent captures (--json, --type, --errors, --since, --has, --route, --group-by route, --limit)',
    load: () => require('./commands/list').list,
  },
  show: { summary: 'one capture: header, summary and first rows, or one row whole (--row; --json)', load: () => require('./commands/show').show },
  rows: { summary: 'rows of a section of one capture or, with --since, of many; filtered and sorted (--json)', load: () => require('./commands/rows').rows },
  diff: {
    summary: 'what changed between two captures: calls added, removed, changed (--name, --baseline, --json; exit 0 same, 1 different)',
    load: () => require('./commands/diff').diff,
  },
  check: {
    summary: "each test's calls against its committed snapshot; calls to other hosts fail (--update, --ci, --since, --json; exit 0 same, 1 different)",
    load: () => require('./commands/check').check,
  },
  baseline: {
    summary: 'keep a capture by name to compare with later (save <id> [name], list, rm <name>)',
    load: () => require('./commands/baseline').baseline,
  },
  tail: {
    summary: 'each new call as it is stored, one line per row, until Ctrl+C (--json, --where, --type, --name)',
    load: () => require('./commands/tail').tail,
  },
  export: {
    summary: "a capture's calls as HAR 1.2 or mocks (probe export <id> --har | --msw | --nock | --undici-snapshot [--out FILE])",
    load: () => require('./commands/export').exportCapture,
  },
  clear: { summary: 'remove every capture', load: () => require('./commands/clear').clear },
  dashboard: { summary: 'serve the dashboard (--open, --host 127.0.0.1, --port N, --token T)', load: () => require('./commands/dashboard').dashboard },
  mcp: { summary: 'MCP server on stdio for coding agents', load: () => require('./commands/mcp').mcp },
  collect: {
    summary: 'OTLP/HTTP receiver for spans from any OTel SDK (--port 4318 --host 127.0.0.1 --token T)',
    load: () => require('./commands/collect').collect,
  },
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return [
    'usage: probe <command> [options]',
    '',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    'probe <command> --help shows its options and an example. Run from the app root: every command uses the config the app uses.',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const helpOf = name === 'help' ? rest[0] : undefined;
  if (helpOf !== undefined && COMMANDS[helpOf]) {
    processIo.out(commandHelp(helpOf, COMMANDS[helpOf]!.summary));
    return 0;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    processIo.out(packageVersion());
    return 0;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    processIo.out(usage());
    return name ? 0 : 1;
  }
  const command = COMMANDS[name];
  if (command && wantsHelp(rest)) {
    processIo.out(commandHelp(name, command.summary));
    return 0;
  }
  if (!command) {
    // Bad input: one line and a hint, exit 2, as for a bad flag.
    const near = name.length <= 64 ? closestKey(name, Object.keys(COMMANDS)) : null;
    processIo.err(`probe: unknown command ${JSON.stringify(name)}${near ? ` (did you mean ${near}?)` : ''}; probe --help lists the commands`);
    return 2;
  }
  try {
    return await command.load()(rest, processIo);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // parseArgs errors are the user's typo: say it in one line.
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      processIo.err(`probe ${name}: ${(error as Error).message.split('\n')[0]} (probe ${name} --help lists its options)`);
      return 2;
    }
    // A store that cannot be reached is the user's setup, not a bug: one line naming it, no stack.
    const failure = storeFailure(error);
    if (failure) {
      processIo.err(`probe ${name}: ${terminalText(failure)}`);
      return 1;
    }
    // Any other failure too (a file that cannot be written, a bug): one line; its stack under PROBE_DEBUG=1.
    processIo.err(`probe ${name}: ${debugOn() ? ((error as Error)?.stack ?? messageOf(error)) : terminalText(messageOf(error))}`);
    return 1;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      processIo.err(`probe: ${terminalText(messageOf(error))}`);
      process.exitCode = 1;
    },
  );
}
