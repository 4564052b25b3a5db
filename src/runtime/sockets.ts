import net from 'node:net';
import tls from 'node:tls';
import { performance } from 'node:perf_hooks';
import { patchMethod, recordPatch } from '../util/patches';

/** When a new socket reached each connection phase (performance.now() ms). */
export interface SocketTimes {
  created: number;
  lookup?: number;
  connect?: number;
  secure?: number;
  /** Set by the first call that used the socket: later calls reuse it (no dns/connect/tls). */
  claimed: boolean;
}

const times = new WeakMap<object, SocketTimes>();
/**
 * Also kept on the socket itself, under a symbol: an HTTP/2 session hands out only a Proxy of its socket
 * (`session.socket`), which forwards property reads to the socket but is not the socket a WeakMap knows
 * (https://github.com/nodejs/node/blob/main/lib/internal/http2/core.js, proxySocketHandler).
 */
const TIMES = Symbol('probe.socket.times');

/** Starts timing a socket that is connecting now. Listeners only observe: the socket's mode is unchanged. */
export function watchSocket(socket: net.Socket, created = performance.now()): SocketTimes {
  let entry = times.get(socket);
  if (entry) return entry;
  entry = { created, claimed: false };
  times.set(socket, entry);
  Object.defineProperty(socket, TIMES, { value: entry, configurable: true });
  const record = entry;
  socket.once('lookup', () => (record.lookup = performance.now()));
  socket.once('connect', () => (record.connect = performance.now()));
  socket.once('secureConnect', () => (record.secure = performance.now()));
  return entry;
}

let installed = false;

/**
 * undici opens its sockets with `net.connect` / `tls.connect` through the module objects, so wrapping
 * those is the one place a new connection's DNS, TCP and TLS phases can be seen from their start.
 */
export function installSocketWatch(): void {
  if (installed) return;
  installed = true;
  const why =
    'undici and node:http agents open connections through these module functions: the one place a new socket is seen before its DNS lookup, TCP connect and TLS handshake (https://github.com/nodejs/undici/blob/main/lib/core/connect.js)';
  const wrap = <T extends (...args: never[]) => net.Socket>(original: T): T =>
    function (this: unknown, ...args: Parameters<T>) {
      const created = performance.now();
      const socket = original.apply(this, args);
      try {
        if (socket && typeof socket.once === 'function') watchSocket(socket, created);
      } catch {
        // timing is best effort; the socket is the app's
      }
      return socket;
    } as unknown as T;
  patchMethod(net, 'connect', 'net.connect', why, (original) => wrap(original));
  patchMethod(net, 'createConnection', 'net.createConnection', why, (original) => wrap(original));
  patchMethod(tls, 'connect', 'tls.connect', why, (original) => wrap(original));
  recordPatch('socket watch', 'lets installSocketWatch run again after shutdown', () => (installed = false));
}

/**
 * Claims a socket for a call. The first call on a new socket gets its connection phases (read later, once
 * connecting is over); any later call on it is a keep-alive reuse and gets none.
 */
export function claimSocket(socket: object | undefined): SocketTimes | null {
  if (!socket) return null;
  const entry = times.get(socket);
  if (!entry || entry.claimed) return null;
  entry.claimed = true;
  return entry;
}

/** claimSocket for a socket seen through a Proxy (an HTTP/2 session's `socket`): its times read through the symbol. */
export function claimProxiedSocket(proxy: object | undefined): SocketTimes | null {
  let entry: SocketTimes | undefined;
  try {
    entry = (proxy as { [TIMES]?: SocketTimes } | undefined)?.[TIMES];
  } catch {
    return null; // the session let its socket go
  }
  if (!entry || entry.claimed) return null;
  entry.claimed = true;
  return entry;
}

export function phasesOf(entry: SocketTimes | null): { dns?: number; connect?: number; tls?: number } {
  if (!entry) return {};
  const out: { dns?: number; connect?: number; tls?: number } = {};
  const tcpStart = entry.lookup ?? entry.created;
  if (entry.lookup !== undefined) out.dns = entry.lookup - entry.created;
  if (entry.connect !== undefined) out.connect = entry.connect - tcpStart;
  if (entry.secure !== undefined && entry.connect !== undefined) out.tls = entry.secure - entry.connect;
  return out;
}
