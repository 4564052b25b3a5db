import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Stub {
  url: string;
  port: number;
  /** `METHOD path` of every request received, in order. */
  received: string[];
  close(): Promise<void>;
}

/**
 * One loopback server that answers what each SDK expects, enough for its call to succeed. A path holding
 * `retry` is answered 503 the first time and 200 after (with headers that make each SDK retry at once).
 */
export async function startStub(): Promise<Stub> {
  const received: string[] = [];
  const seen = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      const key = `${req.method} ${url.pathname}`;
      received.push(key);
      if (url.pathname.includes('retry') && !seen.has(key)) {
        seen.add(key);
        // retry-after(-ms): openai, got and ky wait what the server asks instead of their own back-off.
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0', 'retry-after-ms': '1', 'stripe-should-retry': 'true' });
        res.end(JSON.stringify({ error: { message: 'try again', type: 'api_error' } }));
        return;
      }
      const [type, body, headers] = answer(req.method ?? 'GET', url.pathname);
      res.writeHead(200, { 'content-type': type, ...headers });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(value: unknown, headers: Record<string, string> = {}): [string, string, Record<string, string>] {
  return ['application/json', JSON.stringify(value), headers];
}

function answer(method: string, path: string): [string, string, Record<string, string>] {
  if (path.startsWith('/v1/chat/completions') || path.includes('/openai')) {
    return json({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  }
  if (path.startsWith('/v1/messages') || path.includes('/anthropic')) {
    return json({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [{ type: 'text', text: 'hi' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 1, output_tokens: 1 },
    });
  }
  if (path === '/graphql') return json({ data: { version: '1' } }); // a GraphQL API
  if (path.startsWith('/v1/')) return json({ id: path.split('/').pop(), object: path.includes('customers') ? 'customer' : 'charge' }); // Stripe
  if (path.startsWith('/api/')) return json({ ok: true, channel: 'C1', ts: '1.2' }); // Slack
  if (path.startsWith('/2010-04-01/')) return json({ sid: 'SM1', status: 'queued', body: 'hi', account_sid: 'AC1' }); // Twilio
  if (path.startsWith('/repos/')) return json({ id: 1, name: 'r', full_name: 'o/r' }); // GitHub
  if (path.startsWith('/drive/') || path.startsWith('/storage/')) return json({ kind: 'drive#fileList', files: [] }); // Google
  if (path.startsWith('/bucket/')) {
    // S3: a PUT answers with an ETag, a GET with the object
    if (method === 'PUT') return ['application/xml', '', { etag: '"abc"' }];
    return ['text/plain', 'object body', { etag: '"abc"', 'last-modified': new Date(0).toUTCString() }];
  }
  return json({ ok: true, path });
}
