#!/usr/bin/env node
import type { CliCommand } from './io';
import { processIo } from './io';

/** Each command lives in its own file and is loaded only when run, so `probe list` never loads the dashboard. */
const COMMANDS: Record<string, { summary: string; load: () => CliCommand }> = {
  install: { summary: 'write probe.config.mjs and ignore .probe/ (--mcp: register the MCP server)', load: () => require('./commands/install').install },
  list: { summary: 'recent captures (--json, --type, --errors, --since, --route, --group-by route, --limit)', load: () => require('./commands/list').list },
  show: { summary: 'one capture: header, summary and first rows (--json)', load: () => require('./commands/show').show },
  rows: { summary: 'rows of a section, filtered and sorted (--json)', load: () => require('./commands/rows').rows },
  clear: { summary: 'remove every capture', load: () => require('./commands/clear').clear },
  dashboard: { summary: 'serve the dashboard (--host 127.0.0.1 --port N --token T)', load: () => require('./commands/dashboard').dashboard },
  mcp: { summary: 'MCP server on stdio for coding agents', load: () => require('./commands/mcp').mcp },
  collect: { summary: 'OTLP/HTTP receiver for spans from any OTel SDK (--port 4318)', load: () => require('./commands/collect').collect },
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return ['usage: probe <command> [options]', '', ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    processIo.out(usage());
    return name ? 0 : 1;
  }
  const command = COMMANDS[name];
  if (!command) {
    processIo.err(`probe: unknown command ${JSON.stringify(name)}\n\n${usage()}`);
    return 1;
  }
  try {
    return await command.load()(rest, processIo);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // parseArgs errors are the user's typo: say it in one line.
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      processIo.err(`probe ${name}: ${(error as Error).message}`);
      return 2;
    }
    processIo.err(`probe ${name}: ${(error as Error).stack ?? error}`);
    return 1;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`probe: ${error}\n`);
      process.exitCode = 1;
    },
  );
}
