import path from 'node:path';
import { after } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT, type TestApp } from './app';

export interface McpSession {
  client: Client;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** Calls a tool and returns the result with its JSON parsed (`json`: structuredContent, else the text). */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult & { json: any; text: string }>;
  close(): Promise<void>;
}

/** Sessions still open: the SDK starts the server's process itself, outside helpers/child.ts. */
const open = new Set<Client>();
const pids = new Set<number>();

// At the file's end (this module is imported at its top level), then at its process's exit whatever ended it.
after(() => Promise.all([...open].map((client) => client.close().catch(() => undefined))));
process.on('exit', () => {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
});

/** Starts `probe mcp` (the built CLI) in the app folder and connects the real MCP client over stdio. */
export async function connectMcp(app: TestApp, env: Record<string, string | undefined> = {}): Promise<McpSession> {
  const fullEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(app.env({ preload: 'none', env }))) if (value !== undefined) fullEnv[key] = value;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'mcp'],
    cwd: app.dir,
    env: fullEnv,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'probe-test', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  open.add(client);
  if (pid !== null) pids.add(pid);
  client.onclose = () => {
    open.delete(client);
    if (pid !== null) pids.delete(pid);
  };
  return {
    client,
    stderr: () => stderr,
    async call(name, args = {}) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      let json: unknown = result.structuredContent;
      if (json === undefined && !result.isError) json = JSON.parse(text);
      return { ...result, json, text };
    },
    close: () => client.close(),
  };
}
