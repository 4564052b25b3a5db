import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CliCommand } from '../io';
import { closeContext, openContext } from '../context';
import { createMcpServer } from '../../mcp/server';
import { packageVersion } from '../../util/packageVersion';

/** `probe mcp`: the agent tools on stdio. Stdout is the protocol channel: nothing else may print there. */
export const mcp: CliCommand = async (_argv, io) => {
  const context = openContext(io);
  if (!context) return 2;
  const server = createMcpServer(context.store, packageVersion(), {
    root: context.config.root,
    findings: context.config.findings,
    snapshots: context.config.snapshots,
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    // The client ends the session by closing our stdin; a Redis socket would otherwise keep us alive.
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    transport.onclose = resolve;
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => {});
  await closeContext(context).catch(() => {});
  return 0;
};
