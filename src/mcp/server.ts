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

/**
 * The agent tools over a store. Read-only by construction: only `index()` and `find()` are called, each
 * call reads the store afresh, so captures written after the server started are seen.
 */
export function createMcpServer(store: Store, version: string): McpServer {
  const server = new McpServer({ name: 'probe', version });
  const readOnly = { readOnlyHint: true, openWorldHint: false } as const;

  server.registerTool(
    'probe-rows',
    { title: 'Probe: rows of a capture section', description: ROWS_DESCRIPTION, inputSchema: strictInput(rowsInput), annotations: readOnly },
    (input) => answer(() => (input.group_by !== undefined ? queryGroups(store, { ...input, group_by: input.group_by }) : queryRows(store, input))),
  );
  server.registerTool(
    'probe-list',
    { title: 'Probe: recent captures', description: LIST_DESCRIPTION, inputSchema: strictInput(listInput), annotations: readOnly },
    (input) => answer(() => queryList(store, input)),
  );
  server.registerTool(
    'probe-show',
    { title: 'Probe: one capture', description: SHOW_DESCRIPTION, inputSchema: strictInput(showInput), annotations: readOnly },
    (input) => answer(() => queryShow(store, input)),
  );
  return server;
}

/** Results go out twice, as `structuredContent` and as the same JSON in text for clients that read only text. */
async function answer(run: () => Promise<object>): Promise<CallToolResult> {
  try {
    const result = await run();
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result as Record<string, unknown> };
  } catch (error) {
    // Clipped: an error may quote what the store or a caller handed it, and an agent's context is small.
    const text =
      error instanceof QueryError ? error.message : `probe: could not read the store: ${clipString(String((error as Error)?.message ?? error), 300)}`;
    return { content: [{ type: 'text', text }], isError: true };
  }
}
