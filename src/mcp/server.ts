import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Store } from '../capture/Store';
import { QueryError } from '../query/QueryError';
import { clipString } from '../query/clip';
import { queryList } from '../query/list';
import { queryRows } from '../query/rows';
import { queryGroups } from '../query/groups';
import { queryShow } from '../query/show';
import { LIST_DESCRIPTION, ROWS_DESCRIPTION, SHOW_DESCRIPTION } from './descriptions';
import { listInput, rowsInput, showInput, strictInput } from './schemas';
import { queryFlow } from '../query/flow';
import { DEFAULT_MAX_TOKENS, fitTokens, type AskFor } from '../query/budget';
import { ThreadedFindings } from '../query/ThreadedFindings';
import { BaselineStore } from '../baselines/BaselineStore';
import { withBaselines } from '../query/baselineList';
import type { FindingSettings } from '../findings/Finding';
import type { Capture } from '../capture/types';
import type { ResolvedConfig } from '../config/types';
import { snapshotStatusOf } from '../snapshots/captureStatus';

export interface McpServerOptions {
  /** The app root: baselines are read from its `.probe/baselines`. */
  root?: string;
  findings?: FindingSettings;
  /** With `root`: probe-show says whether a test capture matches its snapshot. */
  snapshots?: ResolvedConfig['snapshots'];
}

/**
 * The agent tools over a store. Read-only by construction: only `index()` and `find()` are called, each
 * call reads the store afresh, so captures written after the server started are seen.
 */
export function createMcpServer(store: Store, version: string, options: McpServerOptions = {}): McpServer {
  const server = new McpServer({ name: 'probe', version });
  const readOnly = { readOnlyHint: true, openWorldHint: false } as const;
  // Off the server's event loop, as the dashboard's: other tool calls are answered while a long capture's are made.
  const findings = new ThreadedFindings(store, options.findings);
  const { root, snapshots } = options;
  const readers = {
    findings,
    ...(root !== undefined ? { baselines: new BaselineStore(root) } : {}),
    ...(root !== undefined && snapshots ? { snapshot: (capture: Capture) => snapshotStatusOf(root, snapshots, capture) } : {}),
  };

  server.registerTool(
    'probe-rows',
    { title: 'Probe: rows of a capture section', description: ROWS_DESCRIPTION, inputSchema: strictInput(rowsInput), annotations: readOnly },
    ({ max_tokens, ...input }) =>
      answer(max_tokens, rowsAsk(input), () =>
        input.group_by !== undefined
          ? queryGroups(store, { ...input, group_by: input.group_by }, undefined, findings.endpoints)
          : queryRows(store, input, undefined, Infinity),
      ),
  );
  server.registerTool(
    'probe-list',
    { title: 'Probe: recent captures', description: LIST_DESCRIPTION, inputSchema: strictInput(listInput), annotations: readOnly },
    ({ max_tokens, baselines, ...input }) =>
      answer(max_tokens, listAsk, async () => {
        const listed = await queryList(store, input, undefined, findings, Infinity);
        return baselines ? withBaselines(listed, readers.baselines) : listed;
      }),
  );
  server.registerTool(
    'probe-show',
    { title: 'Probe: one capture', description: SHOW_DESCRIPTION, inputSchema: strictInput(showInput), annotations: readOnly },
    ({ max_tokens, flow, ...input }) => answer(max_tokens, showAsk, () => (flow ? queryFlow(store, input) : queryShow(store, input, readers))),
  );
  return server;
}

const rowNumber = (next: unknown): number | null => {
  const row = (next as { row?: unknown } | null)?.row;
  return typeof row === 'number' ? row : null;
};
const fromRow = (row: number) => `"where": [{"field": "row", "op": ">=", "value": "${row}"}]`;

/** How to read the rows a probe-rows answer left out: the same call from the first one left out. */
function rowsAsk(input: { id?: string; since?: string }): AskFor {
  return (path, next) => {
    const row = rowNumber(next);
    if (path === 'rows' && row !== null && input.id !== '*' && input.since === undefined) return `the same call with ${fromRow(row)} added`;
    return 'list fewer fields, add where clauses or lower limit';
  };
}

const listAsk: AskFor = () => 'lower limit, or narrow with since, type or route';

const showAsk: AskFor = (path, next) => {
  const section = /^sections\.([^.[]+)\.rows$/.exec(path)?.[1];
  const row = rowNumber(next);
  if (section !== undefined && row !== null)
    return `probe-rows with this id, "section": "${section}" and ${fromRow(row)}; one row whole: probe-show with "section" and "row"`;
  if (path.startsWith('compare')) return 'in a shell: probe diff <before id> <after id> --json';
  if (path.startsWith('findings')) return 'in a shell: probe show <id> --json';
  return 'a lower limit or fewer sections';
};

/**
 * Results go out twice, as `structuredContent` and as the same JSON in text for clients that read only text;
 * each within the token budget (query/budget.ts).
 */
async function answer(maxTokens: number | undefined, askFor: AskFor, run: () => Promise<object>): Promise<CallToolResult> {
  try {
    const result = fitTokens(await run(), maxTokens ?? DEFAULT_MAX_TOKENS, askFor);
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result as Record<string, unknown> };
  } catch (error) {
    // Clipped: an error may quote what the store or a caller handed it, and an agent's context is small.
    const text =
      error instanceof QueryError ? error.message : `probe: could not read the store: ${clipString(String((error as Error)?.message ?? error), 300)}`;
    return { content: [{ type: 'text', text }], isError: true };
  }
}
