import type { ConnectionKey } from '../capture/types';

/**
 * The keys that link a call in one service to the request it became in another (docs/flows.md), read off what
 * both ends already hold: a TCP connection's two `address:port`s, the same from either side, and the order of a
 * request on it (HTTP/1.x answers in order on a connection, so the n-th request a client sent on it is the n-th
 * its server read). Node keeps a socket's addresses once read (`_sockname`, `_peername`): a key costs two property
 * reads per call and one counter per connection, nothing on the wire.
 */
const turns = new WeakMap<object, number>();
const orders = new WeakMap<object, number>();

interface AddressedSocket {
  localAddress?: string;
  localPort?: number;
  remoteAddress?: string;
  remotePort?: number;
}

/** The next request on `socket`: 1 for its first. */
export function takeTurn(socket: object): number {
  const turn = (turns.get(socket) ?? 0) + 1;
  turns.set(socket, turn);
  return turn;
}

/** Counts an incoming request on its connection, kept with the request for requestConnection. */
export function countIncoming(request: object, socket: object | null | undefined): void {
  if (socket && !orders.has(request)) orders.set(request, takeTurn(socket));
}

/** The connection an incoming request came in on, from the server's side; null when not TCP or not counted. */
export function requestConnection(request: object, socket: unknown): ConnectionKey | null {
  const order = orders.get(request);
  return order === undefined ? null : connectionOf(socket, order);
}

/** `socket`'s addresses with `order`; null for a socket without TCP addresses (a unix socket, a closed one). */
export function connectionOf(socket: unknown, order: number): ConnectionKey | null {
  try {
    const s = socket as AddressedSocket | null | undefined;
    if (!s || !s.localPort || !s.remotePort || !s.localAddress || !s.remoteAddress) return null;
    return { local: endpointText(s.localAddress, s.localPort), remote: endpointText(s.remoteAddress, s.remotePort), order };
  } catch {
    return null; // a socket whose handle is gone
  }
}

/**
 * `address:port`, an IPv4 address mapped into IPv6 written as IPv4: a server listening on `::` sees its IPv4
 * clients as `::ffff:a.b.c.d`, which they call themselves `a.b.c.d`.
 */
export function endpointText(address: string, port: number): string {
  const plain = address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
  return `${plain}:${port}`;
}
