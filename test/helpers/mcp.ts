import path from 'node:path';
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
