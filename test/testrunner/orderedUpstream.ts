import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OrderedUpstream {
  url: string;
  /** The path (with its query) of every request, in the order they arrived. */
  readonly arrived: string[];
  close(): Promise<void>;
}

/**
 * A loopback server that answers in the order the calling tests ask, so that the calls of tests running at once
 * interleave for certain, with no sleep: `/x?after=/y,/z` is answered only once requests for `/y` and `/z` have
 * arrived (a test's call held until another test's call came in). A path whose last segment is `fail` answers 500,
 * every other 200. Each connection is closed after its answer (no keep-alive socket holds a runner's process).
 */
export async function startOrderedUpstream(): Promise<OrderedUpstream> {
  const arrived: string[] = [];
  const seen = new Set<string>();
  const held: Array<{ waits: string[]; answer: () => void }> = [];
  const release = () => {
    for (let at = held.length - 1; at >= 0; at--) {
      if (held[at]!.waits.every((path) => seen.has(path))) held.splice(at, 1)[0]!.answer();
    }
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://upstream');
    arrived.push(url.pathname + url.search);
    seen.add(url.pathname);
    const answer = () => {
      res.statusCode = url.pathname.split('/').pop() === 'fail' ? 500 : 200;
      res.setHeader('connection', 'close');
      res.end('ok');
    };
    const waits = (url.searchParams.get('after') ?? '').split(',').filter(Boolean);
    held.push({ waits, answer });
    release();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The test a fixture's call belongs to by its path: the fixtures name each call `/<suite>/<case>/<step>`, after the
 * name path of the test making it (`suite > case`); a call of one segment (`/before-all`) belongs to no test.
 */
export function ownerOf(pathAndQuery: string): string {
  const segments = pathAndQuery.split('?')[0]!.split('/').filter(Boolean);
  return segments.slice(0, -1).join(' > ');
}
