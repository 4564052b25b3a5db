/** `probe <command> --help`: usage, options and an example for each command, printed without loading it. */

interface CommandHelp {
  usage: string;
  about: string;
  options: Array<[flag: string, text: string]>;
  examples: string[];
}

const JSON_FLAG: [string, string] = ['--json', 'print the JSON the agent tool returns instead of a table'];

const HELP: Readonly<Record<string, CommandHelp>> = {
  run: {
    usage: 'probe run [options] -- <command> [args...]',
    about:
      "Runs the command with Probe preloaded (NODE_OPTIONS gets --require for this Probe, so Node processes the command starts are recorded too), serves the dashboard while it runs and prints its URL once on stderr. Input and output pass through; SIGINT, SIGTERM and SIGHUP are passed on; it exits with the command's exit code, or ends by its signal.",
    options: [
      ['--open', 'also open the dashboard in the default browser'],
      ['--port <n>', 'dashboard port (default 4400, or a free one when it is taken; 0 for any)'],
      ['--host <host>', 'dashboard address (default 127.0.0.1)'],
      ['--no-dashboard', 'only the preload, no dashboard'],
    ],
    examples: ['probe run -- node server.js', 'probe run --open -- npm run dev', 'probe run -- npx tsx watch src/index.ts'],
  },
  install: {
    usage: 'probe install [--mcp]',
    about:
      'Writes probe.config.mjs when there is none and adds .probe/ to .gitignore, .cursorignore, .aiexclude and VS Code excludes. Every step merges with what is there.',
    options: [['--mcp', 'also register the MCP server in .mcp.json, .cursor/mcp.json and .vscode/mcp.json']],
    examples: ['probe install --mcp'],
  },
  list: {
    usage: 'probe list [options]',
    about: 'Recent captures, newest first (the probe-list tool).',
    options: [
      ['--has <sections>', 'only captures with rows in these sections (comma list or repeated), e.g. http'],
      ['--has-errors, --errors', 'only captures with a failed call or an error'],
      ['--no-errors', 'only captures without'],
      ['--findings', 'only captures with findings (N+1, duplicate, sequential, retry, slow calls); --no-findings for those without'],
      ['--since <duration>', 'only captures started within it: 30s, 15m, 2h, 1d'],
      ['--type <type>', 'request, job, command or test'],
      ['--route <template>', 'only captures of this route template, e.g. /api/users/:id'],
      ['--service <name>', 'only captures recorded by this service (several services can share one store)'],
      ['--group-by route', 'also count the matching captures per route template'],
      ['--limit <n>', 'captures returned (default 20, max 500)'],
      ['--baselines', 'also list the saved baselines (the names --compare-to baseline:NAME takes)'],
      JSON_FLAG,
    ],
    examples: ['probe list --errors --since 15m', 'probe list --type job --json'],
  },
  show: {
    usage: 'probe show [id] [options]',
    about: 'One capture (default the newest): header, summary and the first rows of each section (the probe-show tool). With --row, one row whole.',
    options: [
      ['--id <id>', 'the capture (same as the positional id)'],
      ['--sections <names>', 'sections to include (comma list or repeated); default every section'],
      ['--limit <n>', 'rows shown per section (default 5, max 100); a cut section lists its failed rows first'],
      ['--row <n>', 'return row n whole (the ROW number of probe rows and the dashboard; 0 is the first)'],
      ['--section <name>', 'with --row: the section of that row (default http)'],
      [
        '--compare-to <what>',
        'also the diff from previous (the run of the same name before), baseline:NAME (without an id: the newest capture of the name the baseline was saved from) or a capture id',
      ],
      ['--all', 'every finding, also those whose cost is under the floor (20 ms and 5 % of the capture)'],
      [
        '--flow',
        'the tree of captures across services this one belongs to: each call under the capture that made it, linked to the capture of the service that answered it; * marks the critical path',
      ],
      JSON_FLAG,
    ],
    examples: ['probe show', 'probe show <id> --flow', 'probe show <id> --sections http --limit 20', 'probe show <id> --row 2'],
  },
  rows: {
    usage: 'probe rows [id|*] [options]',
    about:
      'Rows of a section (default http), filtered and sorted (the probe-rows tool). Without an id: the newest capture that has rows in the section, and the answer counts the captures it left out (and, when no row matched, how many of their rows do). With --since or the id * every capture that matches, newest first; each row then names its capture.',
    options: [
      ['--id <id>', 'the capture (same as the positional id); * for every capture'],
      ['--section <name>', 'section to read (default http); `probe rows http` works too'],
      ['--where <clause>', 'FIELD OP VALUE, repeatable, all must hold; OP one of = != > >= < <= contains starts_with'],
      ['--sort <field>', 'field to sort by, dotted allowed (timing.wait)'],
      ['--dir <asc|desc>', 'sort direction (default asc)'],
      ['--limit <n>', 'rows returned (default 50, max 500)'],
      ['--fields <names>', 'fields to show (comma list or repeated), dotted allowed; row is the row index'],
      ['--since <duration>', 'read every capture started within it: 30s, 15m, 2h, 1d'],
      ['--type <type>', 'only captures of this type: request, job, command or test'],
      ['--name <glob>', 'only captures whose name matches, case ignored: "GET /orders/*"'],
      [
        '--group-by <field>',
        'one line per group (endpoint, host, status, method, route, capture_name or a field): count, failed, p50, p95, max, bytes, first, last, example; --sort p95, --limit groups (default 10)',
      ],
      JSON_FLAG,
    ],
    examples: [
      'probe rows <id>',
      'probe rows --where failed=true --fields url,status,exception.message',
      'probe rows --since 1h --type request --where "status>=500" --sort duration --dir desc',
    ],
  },
  diff: {
    usage: 'probe diff <before-id> <after-id> | --name NAME | --baseline NAME [id] [options]',
    about:
      'What changed between two captures: their calls aligned by endpoint, then order; calls added and removed with their code lines, endpoints called a different number of times, and per aligned call the status, failure, duration (beyond the threshold), URL, request headers, request payload and response fields by JSON path (masked values stay masked). Exit code 0 when the same, 1 when different, 2 for a bad input.',
    options: [
      ['--name <name>', 'the newest two captures of this name, route template or test title'],
      ['--baseline <name>', 'a saved baseline against the capture given (default: the newest of the same name)'],
      ['--threshold-ms <n>', 'a duration change counts from this many ms (default 100)'],
      ['--threshold-percent <n>', '… and this share of the earlier duration (default 50)'],
      ['--flow', 'with two ids: the flows they belong to, compared service by service (each service’s captures in tree order)'],
      ['--json', 'print the diff as JSON'],
    ],
    examples: ['probe diff <id-a> <id-b>', "probe diff --name 'GET /checkout'", 'probe diff --baseline checkout --json'],
  },
  check: {
    usage: 'probe check [--update] [--ci] [--since <duration>] [--json]',
    about:
      'Compares each test of the last test run (the newest probe run -- <tests>, or preloaded process group, whichever wrote a test last) with its snapshot in __probe__/<test file>.json beside the test file, and prints per test that differs its calls added, removed and changed with their code lines. A call to a host outside snapshots.hosts (default: loopback and private addresses) fails the check, --update too. Exit code 0 when every test matches, 1 when one differs, is obsolete, calls another host, or is new under --ci, 2 for a bad input. See docs/snapshots.md.',
    options: [
      ['--update, -u', 'write the snapshots of new and changed tests, remove obsolete ones (a test calling another host is not written)'],
      ['--ci', 'a test without a snapshot fails too (also when CI=1)'],
      ['--since <duration>', 'check the test captures started within it (30s, 15m, 2h, 1d) instead of the last run'],
      ['--json', 'print the result as JSON'],
    ],
    examples: ['probe run -- npm test && probe check --update', 'probe run -- npx vitest run && probe check --ci', 'probe check --json'],
  },
  baseline: {
    usage: 'probe baseline save <id> [name] | list | rm <name> [--json]',
    about:
      'Keeps a capture by name in .probe/baselines (private files, outside the store and its limit) to compare later runs with: probe diff --baseline NAME. The name defaults to the capture name as letters, digits and dashes.',
    options: [['--json', 'print JSON']],
    examples: ['probe baseline save <id> checkout', 'probe baseline list', 'probe baseline rm checkout'],
  },
  tail: {
    usage: 'probe tail [--json] [--where CLAUSE] [--type TYPE] [--name GLOB]',
    about: 'Prints each outgoing call as its capture is stored (time UTC, capture, method, status, duration, URL, code line), until Ctrl+C.',
    options: [
      ['--where <clause>', 'FIELD OP VALUE, repeatable, as in probe rows'],
      ['--type <type>', 'only captures of this type: request, job, command or test'],
      ['--name <glob>', 'only captures whose name matches, case ignored'],
      ['--json', 'one JSON object per line: at, capture_id, capture_name, capture_type, row and the whole row'],
    ],
    examples: ['probe tail', 'probe tail --where failed=true --json'],
  },
  export: {
    usage: 'probe export [id|*] [--har | --msw | --nock | --undici-snapshot] [--out FILE]',
    about:
      "A capture's outgoing HTTP calls as HAR 1.2 (HTTP Archive, the default), or as mocks that replay them: an MSW 2 handlers module, nock definitions for nock.define(), or a file undici's SnapshotAgent plays back (options matchHeaders ['content-type'], matchBody false). Values Probe masked stay masked; calls whose body was cut or not kept, or that got no response, are left out and named on stderr.",
    options: [
      ['id', 'capture id (see probe list), or * for every capture; default: the newest capture with HTTP calls'],
      ['--har', 'HAR 1.2 (the default)'],
      ['--msw | --nock | --undici-snapshot', 'mocks instead; with them --since, --type, --name and --where choose captures and calls as in probe rows'],
      ['--out <file>', 'write to the file instead of stdout'],
    ],
    examples: [
      'probe export <id> --har --out checkout.har',
      'probe export <id> --msw --out test/handlers.mjs',
      'probe export --since 15m --nock --out nock.json',
    ],
  },
  clear: {
    usage: 'probe clear',
    about: 'Removes every capture from the configured store.',
    options: [],
    examples: ['probe clear'],
  },
  dashboard: {
    usage: 'probe dashboard [options]',
    about: 'Serves the dashboard; the first line printed ends with its URL. Ctrl+C stops it.',
    options: [
      ['--open', 'open it in the default browser (where there is none, the URL printed is the way in)'],
      ['--host <host>', 'address to bind (default 127.0.0.1); beyond loopback a token is required'],
      ['--port <n>', 'port (default 4400, or a free one when it is taken; 0 for any)'],
      ['--token <t>', 'require this token (beyond loopback: default PROBE_TOKEN, else a random one shown in the URL)'],
    ],
    examples: ['probe dashboard --open', 'probe dashboard --port 0', 'probe dashboard --host 0.0.0.0'],
  },
  mcp: {
    usage: 'probe mcp',
    about: 'The agent tools probe-list, probe-show and probe-rows as an MCP server on stdio, for coding agents (probe install --mcp registers it).',
    options: [],
    examples: ['probe mcp'],
  },
  collect: {
    usage: 'probe collect [options]',
    about: 'An OTLP/HTTP receiver (/v1/traces, JSON and protobuf, gzip) that turns spans from any OTel SDK into captures in the configured store.',
    options: [
      ['--port <n>', 'port (default 4318)'],
      ['--host <host>', 'address to bind (default 127.0.0.1); beyond loopback a token is required'],
      ['--token <t>', 'require this token as "Authorization: Bearer <t>" or ?token= (beyond loopback: default PROBE_TOKEN, else a random one)'],
    ],
    examples: ['probe collect --port 4318', 'probe collect --host 0.0.0.0'],
  },
};

/** The text of `probe <name> --help`; `summary` serves commands without an entry here. */
export function commandHelp(name: string, summary: string): string {
  const help = HELP[name];
  if (!help) return `usage: probe ${name} [options]\n\n${summary}`;
  const width = Math.max(0, ...help.options.map(([flag]) => flag.length));
  const lines = [`usage: ${help.usage}`, '', help.about];
  if (help.options.length) lines.push('', 'options:', ...help.options.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`));
  lines.push('', help.examples.length > 1 ? 'examples:' : 'example:', ...help.examples.map((example) => `  ${example}`));
  return lines.join('\n');
}

/** True when the arguments ask for help (`--help` or `-h` anywhere before a `--`). */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}
