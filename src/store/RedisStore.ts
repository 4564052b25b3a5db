import { context } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import type { Store } from '../capture/Store';
import type { Capture, IndexRow } from '../capture/types';
import type { Logger } from '../util/logger';
import { indexRowOf, isValidCaptureId } from '../capture/indexRow';
import { ProbeConfigError } from '../config/ProbeConfigError';
import { CLEAR_SCRIPT, INDEX_SCRIPT, PUT_SCRIPT, type RedisScript } from './redisScripts';
import { StoreError } from './StoreError';
import { readableCapture } from '../capture/readableCapture';
import { withDeadline } from '../util/deadline';
import { captureText } from './captureText';
import type { RowCache } from '../builder/RowCache';
import { createHash } from 'node:crypto';
import { RedisLinks } from '../flows/RedisLinks';
import { notesOf, withLinks } from '../flows/linkNotes';

export interface RedisStoreOptions {
  /** `redis://` or `rediss://` URL of the server. */
  url: string;
  /** Prefix of every key Probe writes. */
  prefix: string;
  /** Seconds a capture lives. */
  ttl: number;
  /** Most recent captures kept. */
  limit: number;
  logger?: Logger;
}

/** Counters of what happened to puts, for tests and `PROBE_DEBUG`. */
export interface RedisStoreStats {
  written: number;
  /** Puts that rejected: Redis unreachable, a write that failed or timed out, a closed store. */
  failed: number;
}

/** How long close() waits for writes in flight. */
const EXIT_GRACE_MS = 5_000;
const CONNECT_TIMEOUT_MS = 3_000;
const READ_TIMEOUT_MS = 10_000;
const WRITE_TIMEOUT_MS = 5_000;
/**
 * A write the server runs later than this before its timeout is refused by the server (PUT_SCRIPT): its answer
 * could not reach this process before the timeout counted it lost. The margin covers the answer's transit
 * and an event loop busy for up to a second.
 */
const WRITE_MARGIN_MS = 1_000;
const MAX_BACKOFF_MS = 10_000;

/** The part of the `redis` client this driver uses. */
interface Client {
  connect(): Promise<unknown>;
  sendCommand(args: string[]): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  unref(): void;
  close(): Promise<void>;
  destroy(): void;
  readonly isOpen: boolean;
  readonly isReady: boolean;
}

type Status = 'idle' | 'connecting' | 'ready' | 'backoff' | 'closed';

/**
 * Captures in Redis, shared by every process and host that points at the server.
 *
 * A Redis that is down, slow or restarted costs captures, never the app. The store keeps no queue of its
 * own: a put writes now or rejects (Redis unreachable, in backoff after a failed connect, or a write that
 * failed), so the capture writer, whose queue is the one bound on what waits, counts every capture lost and
 * says when the store is back (CaptureWriter). Puts made while reconnects back off reject at once; the first
 * put after the backoff tries again. The socket is unref'd: only a pending connect, write or read keeps the
 * process alive, each for at most its deadline (which also drops a connection that stopped answering), so a
 * finished app exits promptly whatever Redis does, and a CLI awaiting a read is not cut short. Reads (CLI,
 * dashboard, MCP) reject with a clear error. Commands run with tracing suppressed so an app's own Redis
 * instrumentation never records them.
 */
export class RedisStore implements Store {
  readonly url: string;
  readonly prefix: string;
  readonly ttl: number;
  readonly limit: number;
  private readonly logger: Logger | undefined;
  private readonly indexKey: string;
  private readonly rowPrefix: string;
  private readonly capturePrefix: string;

  private client: Client | null = null;
  private status: Status = 'idle';
  private connecting: Promise<void> | null = null;
  private lastError: unknown = null;
  private failures = 0;
  private retryAt = 0;
  /** The server's clock minus this process's, in ms, measured at connect (TIME): puts carry deadlines in its clock. */
  private clockOffset = 0;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly counters = { written: 0, failed: 0 };

  constructor(options: RedisStoreOptions) {
    this.url = options.url;
    if (!/^rediss?:\/\//i.test(this.url)) {
      throw new ProbeConfigError(
        'storage.redis.url',
        `must be a redis:// or rediss:// URL of a Redis server that every process can reach, got ${redactUrl(this.url)} (an in-process memory store cannot be shared with the CLI, the dashboard or other processes)`,
      );
    }
    this.prefix = options.prefix;
    this.ttl = Math.max(1, Math.floor(options.ttl));
    this.limit = Math.max(1, Math.floor(options.limit));
    this.logger = options.logger;
    this.indexKey = `${this.prefix}index`;
    this.rowPrefix = `${this.prefix}row:`;
    this.capturePrefix = `${this.prefix}capture:`;
  }

  stats(): RedisStoreStats {
    return { ...this.counters };
  }

  /**
   * Writes the capture now; rejects (a StoreError) when it cannot, so that the caller counts it lost. `rows`: the
   * cache its rows came from, whose texts are reused (captureText).
   */
  async put(capture: Capture, rows?: RowCache): Promise<void> {
    if (!isValidCaptureId(capture?.id)) throw new StoreError('PROBE_STORE_BAD_ID', `refusing to store a capture with id ${JSON.stringify(capture?.id)}`);
    const row = indexRowOf(capture);
    const score = Number.isFinite(row.started_at) ? String(row.started_at) : '0';
    const args = [capture.id, score, JSON.stringify(row), captureText(capture, rows), String(this.ttl), String(this.limit), this.rowPrefix, this.capturePrefix];
    const keys = [this.indexKey, this.rowPrefix + capture.id, this.capturePrefix + capture.id];
    let client: Client;
    try {
      client = await this.writable();
    } catch (error) {
      this.counters.failed++;
      throw error;
    }
    // The link notes before the capture: whoever sees the capture finds its links too. A failed note only leaves it
    // unlinked (said under PROBE_DEBUG).
    const notes = notesOf(capture);
    if (notes.length)
      await this.links.note(notes).catch((error: unknown) => this.logger?.debug(`redis store: could not note the links of capture ${capture.id}`, error));
    args.push(String(Math.round(Date.now() + this.clockOffset + WRITE_TIMEOUT_MS - WRITE_MARGIN_MS)));
    const write = withDeadline(this.script(client, PUT_SCRIPT, keys, args), WRITE_TIMEOUT_MS, 'a Redis write', {
      ref: true,
      error: () => new StoreError('PROBE_STORE_TIMEOUT', `no answer in ${WRITE_TIMEOUT_MS} ms`),
    });
    this.inFlight.add(write);
    try {
      if ((await write) === -1)
        throw new StoreError('PROBE_STORE_TIMEOUT', `Redis ran the write after its deadline (${WRITE_TIMEOUT_MS - WRITE_MARGIN_MS} ms) and refused it`);
      this.counters.written++;
    } catch (error) {
      this.counters.failed++;
      // A Redis that stopped answering, or a connection that went away: the next put reconnects.
      if ((error as StoreError)?.code === 'PROBE_STORE_TIMEOUT' || !client.isReady) this.lost(client, error);
      throw new StoreError('PROBE_STORE_WRITE', `could not write capture ${capture.id} to Redis at ${redactUrl(this.url)}`, error);
    } finally {
      this.inFlight.delete(write);
    }
  }

  /** The link index beside the captures (flows/RedisLinks.ts), over this driver's connection and deadlines. */
  private linkIndex: RedisLinks | null = null;
  private get links(): RedisLinks {
    return (this.linkIndex ??= this.makeLinks());
  }

  private makeLinks(): RedisLinks {
    return new RedisLinks({
      prefix: `${this.prefix}link:`,
      ttl: this.ttl,
      eval: async (source, keys, args) => {
        const client = await this.writable();
        return withDeadline(
          this.script(client, { source, sha: createHash('sha1').update(source).digest('hex') }, keys, args),
          WRITE_TIMEOUT_MS,
          'a Redis write',
          { ref: true },
        );
      },
      mget: (keys) => this.read((client) => suppressed(() => client.sendCommand(['MGET', ...keys]))),
    });
  }

  async find(id: string): Promise<Capture | null> {
    if (!isValidCaptureId(id)) return null;
    const text = await this.read((client) => client.sendCommand(['GET', this.capturePrefix + id]));
    if (typeof text !== 'string') return null;
    const capture = parseJson(text) as Capture | null;
    if (!capture || typeof capture !== 'object' || capture.id !== id) {
      this.logger?.debug(`redis store: skipped corrupt capture ${id}`);
      return null;
    }
    return withLinks(readableCapture(capture), this.links);
  }

  async index(): Promise<IndexRow[]> {
    const texts = await this.read((client) => this.script(client, INDEX_SCRIPT, [this.indexKey], [this.rowPrefix]));
    const rows: IndexRow[] = [];
    for (const text of Array.isArray(texts) ? texts : []) {
      const row = typeof text === 'string' ? (parseJson(text) as IndexRow | null) : null;
      if (row && typeof row === 'object' && isValidCaptureId(row.id)) rows.push(row);
      else this.logger?.debug('redis store: skipped a corrupt index row');
    }
    return rows;
  }

  /** The members of the index sorted set: ids only, no row JSON (an id whose row expired may be among them). */
  async ids(): Promise<string[]> {
    const ids = await this.read((client) => client.sendCommand(['ZRANGE', this.indexKey, '0', '-1']));
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  }

  async clear(): Promise<void> {
    await this.read((client) => this.script(client, CLEAR_SCRIPT, [this.indexKey], [this.rowPrefix, this.capturePrefix]));
    // The link notes too (flows/RedisLinks.ts): a note of a cleared capture would make a new one's key look claimed twice.
    await this.read(async (client) => {
      let cursor = '0';
      do {
        const [next, keys] = (await suppressed(() => client.sendCommand(['SCAN', cursor, 'MATCH', `${this.prefix}link:*`, 'COUNT', '500']))) as [
          string,
          string[],
        ];
        if (keys.length) await suppressed(() => client.sendCommand(['UNLINK', ...keys]));
        cursor = next;
      } while (cursor !== '0');
    });
  }

  /** Waits (briefly) for the writes in flight, then closes the connection. */
  async close(): Promise<void> {
    if (this.status === 'closed') return;
    if (this.inFlight.size > 0)
      await withDeadline(Promise.allSettled([...this.inFlight]), EXIT_GRACE_MS, 'the writes in flight', { ref: true }).catch(() => undefined);
    this.status = 'closed';
    const client = this.client;
    this.client = null;
    if (client?.isOpen) {
      await withDeadline(client.close(), EXIT_GRACE_MS, 'closing the connection', { ref: true }).catch(() => undefined);
      if (client.isOpen) client.destroy();
    }
  }

  // --- writes ---------------------------------------------------------------------------------------

  /** The connected client for a write: connects when the backoff allows, else rejects at once. */
  private async writable(): Promise<Client> {
    if (this.status === 'closed') throw new StoreError('PROBE_STORE_CLOSED', 'the redis store is closed');
    if (this.status === 'backoff' && Date.now() < this.retryAt) throw this.unreachable();
    if (this.status !== 'ready') await this.connect().catch(() => undefined);
    if (this.status !== 'ready' || !this.client) throw this.unreachable();
    return this.client;
  }

  private unreachable(): StoreError {
    return new StoreError('PROBE_STORE_UNREACHABLE', `Redis at ${redactUrl(this.url)} is unreachable (storage.redis.url)`, this.lastError);
  }

  // --- reads ----------------------------------------------------------------------------------------

  private async read<T>(run: (client: Client) => Promise<T>): Promise<T> {
    if (this.status === 'closed') throw new StoreError('PROBE_STORE_CLOSED', 'the redis store is closed');
    // A person or an agent is waiting: try now, whatever the write backoff says.
    if (this.status !== 'ready') await this.connect().catch(() => undefined);
    const client = this.client;
    if (this.status !== 'ready' || !client) throw this.unreachable();
    return withDeadline(run(client), READ_TIMEOUT_MS, 'a Redis read', {
      ref: true,
      error: () => new StoreError('PROBE_STORE_TIMEOUT', `Redis at ${redactUrl(this.url)} did not answer in ${READ_TIMEOUT_MS / 1000} s`),
    });
  }

  // --- connection -----------------------------------------------------------------------------------

  private connect(): Promise<void> {
    if (this.status === 'ready' || this.status === 'closed') return Promise.resolve();
    if (this.connecting) return this.connecting;
    // Loaded before the exit grace starts: a busy machine can take seconds to load the client.
    const { createClient } = loadRedis();
    this.status = 'connecting';
    const attempt = this.openClient(createClient).finally(() => {
      this.connecting = null;
    });
    this.connecting = attempt;
    return attempt;
  }

  private async openClient(createClient: RedisModule['createClient']): Promise<void> {
    const client = createClient({
      url: this.url,
      // The capture writer's bounded queue decides what waits; the client's unbounded one would hold every capture.
      disableOfflineQueue: true,
      socket: { connectTimeout: CONNECT_TIMEOUT_MS, reconnectStrategy: false },
    }) as unknown as Client;
    client.on('error', (error) => {
      this.lastError = error;
      if (this.client === client && !client.isOpen) this.lost(client, error);
    });
    client.unref();
    try {
      // The client's connectTimeout ends at the TCP handshake; a server that accepts and never answers would
      // hold the handshake commands forever, so the whole connect gets a deadline.
      await withDeadline(
        suppressed(() => client.connect()),
        CONNECT_TIMEOUT_MS,
        'a Redis connect',
        { ref: true, error: () => new StoreError('PROBE_STORE_TIMEOUT', `no answer in ${CONNECT_TIMEOUT_MS} ms`) },
      );
      this.clockOffset = await withDeadline(serverClockOffset(client), CONNECT_TIMEOUT_MS, 'a Redis TIME', {
        ref: true,
        error: () => new StoreError('PROBE_STORE_TIMEOUT', `no answer in ${CONNECT_TIMEOUT_MS} ms`),
      });
    } catch (error) {
      this.lastError = error;
      client.destroy();
      if (this.status === 'closed') return;
      this.backoff(error);
      throw error;
    }
    if (this.status === 'closed') {
      client.destroy();
      return;
    }
    if (this.failures > 0) this.logger?.debug(`redis store: connected again to ${redactUrl(this.url)}`);
    this.client = client;
    this.status = 'ready';
    this.failures = 0;
  }

  private lost(client: Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    client.destroy();
    if (this.status === 'closed') return;
    this.backoff(error);
  }

  /** The capture writer says the outage and the captures it cost; here only PROBE_DEBUG hears of it. */
  private backoff(error: unknown): void {
    const delay = Math.min(100 * 2 ** this.failures, MAX_BACKOFF_MS);
    this.failures++;
    this.status = 'backoff';
    this.retryAt = Date.now() + delay + Math.floor(Math.random() * 100);
    this.logger?.debug(`redis store: Redis at ${redactUrl(this.url)} is unreachable; next attempt in ${delay} ms`, error);
  }

  private async script(client: Client, script: RedisScript, keys: string[], args: string[]): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await suppressed(() => client.sendCommand(['EVALSHA', script.sha, ...tail]));
    } catch (error) {
      if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
      return suppressed(() => client.sendCommand(['EVAL', script.source, ...tail]));
    }
  }
}

type RedisModule = typeof import('redis');
let redisModule: RedisModule | null = null;

/** Loaded on first connect, so apps on the file store never load the Redis client. */
function loadRedis(): RedisModule {
  redisModule ??= require('redis') as RedisModule;
  return redisModule;
}

function suppressed<T>(run: () => Promise<T>): Promise<T> {
  return context.with(suppressTracing(context.active()), run);
}

/** The server's clock minus this process's (ms), to within half a round trip. */
async function serverClockOffset(client: Client): Promise<number> {
  const before = Date.now();
  const time = (await suppressed(() => client.sendCommand(['TIME']))) as unknown;
  const after = Date.now();
  if (!Array.isArray(time)) return 0;
  const server = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
  return Number.isFinite(server) ? server - (before + after) / 2 : 0;
}

/** The URL without its password, for messages. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '****';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//****@');
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
