import fs from 'node:fs';
import type net from 'node:net';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { FILE_MODE, makePrivateFolder } from '../store/privateFolder';
import { readSafeText } from '../util/safeRead';

/**
 * The servers the processes and threads of one app listen on, as each one's Probe saw them answer a request:
 * one small file per thread under `<root>/.probe/servers/`, `<pid>-<thread>.json`, a list of addresses
 * (`tcp:<port>` with the host it is bound to, `unix:<path>`). A dev server that passes each request on to a
 * server of the same app (`nuxi dev` hands it to Nitro's worker thread over a unix socket) is told by it: its
 * call's target is one of these (see proxyHop). Nothing is sent on the wire and nothing the app sees changes.
 */

/** An address a server listens on, or a call connected to. */
export interface Endpoint {
  kind: 'tcp' | 'unix';
  /** The unix socket path, or the TCP port. */
  at: string;
  /** TCP: the address bound (`::`, `0.0.0.0`: every interface) or connected to. */
  host?: string;
}

interface Listed {
  pid: number;
  servers: Endpoint[];
}

/** A thread's list is a few addresses; a larger file is not one Probe wrote. */
const MAX_LIST_BYTES = 64 * 1024;

const announced = new WeakSet<object>();
const mine: Endpoint[] = [];
let cleaned = false;

function folderOf(root: string): string {
  return path.join(root, '.probe', 'servers');
}

/** The address a server listens on, as `server.address()` gives it. */
function endpointOf(server: net.Server): Endpoint | null {
  const address = server.address();
  if (typeof address === 'string' && address) return { kind: 'unix', at: address };
  if (address && typeof address === 'object' && typeof address.port === 'number') return { kind: 'tcp', at: String(address.port), host: address.address };
  return null;
}

/**
 * Lists a server of this thread once, the first time it answers a request (before its answer can reach a
 * proxy in front of it). Best effort: a folder that cannot be written leaves the server unlisted.
 */
export function announceServer(root: string, server: unknown): void {
  if (!server || typeof server !== 'object' || announced.has(server)) return;
  announced.add(server);
  try {
    const endpoint = endpointOf(server as net.Server);
    if (!endpoint) return;
    mine.push(endpoint);
    const folder = folderOf(root);
    // Only inside a real `.probe` (one a link leads elsewhere is the file store's to refuse, not to write through).
    if (fs.lstatSync(path.join(root, '.probe'), { throwIfNoEntry: false })?.isSymbolicLink()) return;
    makePrivateFolder(folder);
    // The folder itself must be one (a link put in its place leads elsewhere): never written through.
    if (!fs.lstatSync(folder).isDirectory()) return;
    if (!cleaned) {
      cleaned = true;
      removeEnded(folder);
    }
    const listed: Listed = { pid: process.pid, servers: mine };
    const file = path.join(folder, `${process.pid}-${threadId}.json`);
    const temporary = `${file}.${process.hrtime.bigint()}.tmp`;
    // 'wx': created here, never an existing file or a link's target; the rename replaces the name, not a target.
    fs.writeFileSync(temporary, JSON.stringify(listed), { mode: FILE_MODE, flag: 'wx' });
    fs.renameSync(temporary, file);
  } catch {
    // unlisted: its proxy's captures stay as they were
  }
}

/** The lists of processes that have ended are removed (once per process, at its first listing): regular files only. */
function removeEnded(folder: string): void {
  for (const name of fs.readdirSync(folder)) {
    const pid = Number(/^(\d+)-\d+\.json$/.exec(name)?.[1]);
    if (!pid || alive(pid)) continue;
    const file = path.join(folder, name);
    if (fs.lstatSync(file, { throwIfNoEntry: false })?.isFile()) fs.rmSync(file, { force: true });
  }
}

/** Whether a process still runs (a file left by one that ended names a port someone else may hold now). */
function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The servers every live process of the app listed (this thread's own included). */
export function ownServers(root: string): Endpoint[] {
  const found: Endpoint[] = [...mine];
  let names: string[] = [];
  const folder = folderOf(root);
  try {
    // A folder a link put in its place leads elsewhere: not read.
    if (!fs.lstatSync(folder).isDirectory() || fs.lstatSync(path.dirname(folder)).isSymbolicLink()) return found;
    names = fs.readdirSync(folder);
  } catch {
    return found;
  }
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    try {
      // A FIFO, a device or a link (a repository can commit one to /dev/zero) under a list's name is never opened.
      const listed = JSON.parse(readSafeText(path.join(folder, name), { maxBytes: MAX_LIST_BYTES, ownOnly: true })) as Listed;
      if (typeof listed?.pid === 'number' && Array.isArray(listed.servers) && alive(listed.pid)) found.push(...listed.servers);
    } catch {
      // being replaced, or not ours: skipped
    }
  }
  return found;
}

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;
const ANY = new Set(['::', '0.0.0.0', '::ffff:0.0.0.0']);

/** Whether a call's target is one of the servers listed. A TCP target must be on this machine (loopback). */
export function isOwnServer(target: Endpoint, servers: Endpoint[]): boolean {
  if (target.kind === 'tcp' && !(target.host && LOOPBACK.test(target.host))) return false;
  return servers.some(
    (server) =>
      server.kind === target.kind &&
      server.at === target.at &&
      (server.kind === 'unix' || !server.host || ANY.has(server.host) || server.host === target.host || LOOPBACK.test(server.host)),
  );
}
