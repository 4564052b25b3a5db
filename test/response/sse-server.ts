import http from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo, Socket } from 'node:net';

/** OpenAI chat completions with `stream: true, stream_options: {include_usage: true}`, as the API sends them. */
export function openAiStream(): string[] {
  const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-4o-mini-2024-07-18', system_fingerprint: 'fp_1' };
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null })}\n\n`;
  return [
    chunk({ role: 'assistant', content: '', refusal: null }),
    chunk({ content: 'Hello' }),
    chunk({ content: ', wor' }),
    chunk({ content: 'ld!' }),
    chunk({}, 'stop'),
    `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16, prompt_tokens_details: { cached_tokens: 0 } } })}\n\n`,
    'data: [DONE]\n\n',
  ];
}

/** Anthropic Messages API with `stream: true`: named events, text deltas, usage in message_start and message_delta. */
export function anthropicStream(): string[] {
  const event = (name: string, data: object) => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
  return [
    event('message_start', {
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [],
        stop_reason: null,
        usage: { input_tokens: 25, output_tokens: 1 },
      },
    }),
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    event('ping', {}),
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Bonjour' } }),
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: ' le monde' } }),
    event('content_block_stop', { index: 0 }),
    event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 15 } }),
    event('message_stop', {}),
  ];
}

/** Secret-named fields and markup in event data, CRLF line ends, a comment and a multi-line data field. */
export function hostileStream(): string[] {
  return [
    ': a comment line\r\n\r\n',
    `event: session\r\nid: 7\r\ndata: ${JSON.stringify({ token: 'sse-secret-token', note: '<img src=x onerror="window.__pwned=true">' })}\r\n\r\n`,
    'data: plain <b>text</b> line one\r\ndata: line two\r\n\r\n',
  ];
}

/** Many events: a body well past a small `max_body_bytes`. */
export function longStream(count = 200): string[] {
  return Array.from({ length: count }, (_, i) => `id: ${i}\ndata: ${JSON.stringify({ n: i, pad: 'x'.repeat(60) })}\n\n`);
}

export interface SseServer {
  url: string;
  /** sha256 and length of each route's whole body, as sent. */
  sent(route: string): { sha256: string; bytes: number };
  /** Keys whose paced stream sent its second event only after the client asked for it (never on a timer). */
  releasedByClient: Set<string>;
  close(): Promise<void>;
}

const ROUTES: Record<string, () => string[]> = { '/openai': openAiStream, '/anthropic': anthropicStream, '/hostile': hostileStream, '/long': longStream };

/**
 * A loopback SSE server. `/paced?k=K` sends one event and holds the second until `/release?k=K` arrives:
 * a client can only ask for the release after reading the first event, so a stream held back anywhere
 * between server and app stalls. A fallback timer ends a stall (marked by not being in releasedByClient).
 */
export async function startSseServer(): Promise<SseServer> {
  const waiting = new Map<string, () => void>();
  const releasedByClient = new Set<string>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const key = url.searchParams.get('k') ?? '';
    const events = ROUTES[url.pathname];
    if (events) {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      // One write per event, flushed separately, as a streaming API does.
      const list = events();
      let i = 0;
      const next = () => {
        if (i === list.length) return res.end();
        res.write(list[i++]);
        setImmediate(next);
      };
      return next();
    }
    if (url.pathname === '/paced') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: first\ndata: {"n":1}\n\n');
      const send = (byClient: boolean) => {
        if (!waiting.has(key)) return;
        waiting.delete(key);
        if (byClient) releasedByClient.add(key);
        res.end('event: second\ndata: {"n":2}\n\n');
      };
      waiting.set(key, () => send(true));
      // Only so a held-back stream ends the test instead of hanging it.
      setTimeout(() => send(false), 15_000).unref();
      return;
    }
    if (url.pathname === '/release') {
      waiting.get(key)?.();
      res.writeHead(204);
      return res.end();
    }
    res.writeHead(404);
    res.end();
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sent: (route) => {
      const body = Buffer.from(ROUTES[route]!().join(''));
      return { sha256: createHash('sha256').update(body).digest('hex'), bytes: body.length };
    },
    releasedByClient,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
