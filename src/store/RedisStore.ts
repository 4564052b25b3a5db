import { context } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import type { Store } from './Store';
import type { Capture, IndexRow } from '../capture/types';
import type { Logger } from '../util/logger';
import { indexRowOf, isValidCaptureId } from '../capture/indexRow';
import { ProbeConfigError } from '../config/ProbeConfigError';
import { CLEAR_SCRIPT, INDEX_SCRIPT, PUT_SCRIPT, type RedisScript } from './redisScripts';
import { StoreError } from './StoreError';

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
  dropped: number;
  queued: number;
}

/** Puts waiting for Redis beyond this many are dropped (and counted). */
const MAX_QUEUE = 100;
/** How long close() waits for queued writes. */
const EXIT_GRACE_MS = 5_000;
const CONNECT_TIMEOUT_MS = 3_000;
const READ_TIMEOUT_MS = 10_000;
const WRITE_TIMEOUT_MS = 5_000;
const MAX_BACKOFF_MS = 10_000;
const BATCH = 32;

interface Pending {
  id: string;
  score: string;
  row: string;
  capture: string;
  /** Resolves the caller's put(): once written, dropped, or known to wait for a reconnect. */
  done: () => void;
}

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
 * Captures in Redis, shared by every process and host that points at the server (SPEC 5).
 *
 * A Redis that is down, slow or restarted costs captures, never the app: puts queue (up to 100, then drop
 * and count) and resolve without waiting for a reconnect; reconnects back off exponentially; the socket is
 * unref'd: only a pending connect, write or read keeps the process alive, each for at most its deadline, so a
 * finished app exits promptly whatever Redis does, and a CLI awaiting a read is not cut short. The app's
 * stderr gets one warning. Reads (CLI, dashboard, MCP) reject with a clear error instead.
 * Commands run with tracing suppressed so an app's own Redis instrumentation never records them.
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
  private retryTimer: NodeJS.Timeout | null = null;
  private draining = false;
  private inFlight = 0;
  private readonly queue: Pending[] = [];
  private readonly counters = { written: 0, dropped: 0 };

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
    return { ...this.counters, queued: this.queue.length };
  }

  async put(capture: Capture): Promise<void> {
    if (!isValidCaptureId(capture?.id)) throw new StoreError('PROBE_STORE_BAD_ID', `refusing to store a capture with id ${JSON.stringify(capture?.id)}`);
    const row = indexRowOf(capture);
    const score = Number.isFinite(row.started_at) ? String(row.started_at) : '0';
    const item = { id: capture.id, score, row: JSON.stringify(row), capture: JSON.stringify(capture) };
    if (this.status === 'closed' || this.queue.length >= MAX_QUEUE) {
      this.counters.dropped++;
      this.logger?.debug(
        `redis store: dropped capture ${capture.id} (${this.status === 'closed' ? 'store closed' : `${MAX_QUEUE} writes already waiting`}; ${this.counters.dropped} dropped so far)`,
      );
      return;
    }
    await new Promise<void>((resolve) => {
      this.queue.push({ ...item, done: resolve });
      this.pump();
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
    return capture;
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
  }

  /** Writes what is queued (briefly), then closes the connection. */
  async close(): Promise<void> {
    if (this.status === 'closed') return;
    if (this.queue.length > 0 || this.inFlight > 0) await this.settle(EXIT_GRACE_MS);
    this.status = 'closed';
    this.clearTimers();
    for (const item of this.queue.splice(0)) {
      this.counters.dropped++;
      item.done();
    }
    const client = this.client;
    this.client = null;
    if (client?.isOpen) {
      await withDeadline(client.close(), EXIT_GRACE_MS).catch(() => undefined);
      if (client.isOpen) client.destroy();
    }
  }

  // --- writes ---------------------------------------------------------------------------------------

  /** Moves the queue towards Redis: connects when allowed, else releases the callers (their puts stay queued). */
  private pump(): void {
    if (this.status === 'ready') {
      void this.drain();
      return;
    }
    if (this.status === 'connecting') return;
    if (this.status === 'backoff' && Date.now() < this.retryAt) {
      this.releaseCallers();
      this.scheduleRetry();
      return;
    }
    void this.connect().then(
      () => this.pump(),
      () => this.pump(),
    );
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.status === 'ready' && this.client && this.queue.length > 0) {
        const client = this.client;
        const batch = this.queue.splice(0, BATCH);
        this.inFlight += batch.length;
        let results: PromiseSettledResult<unknown>[];
        try {
          results = await withDeadline(Promise.allSettled(batch.map((item) => this.write(client, item))), WRITE_TIMEOUT_MS);
        } catch (error) {
          // A Redis that stopped answering: give up on this connection; the batch waits for the next one.
          this.lastError = new StoreError('PROBE_STORE_TIMEOUT', `no answer in ${WRITE_TIMEOUT_MS} ms`, error);
          results = batch.map(() => ({ status: 'rejected', reason: this.lastError }));
          client.destroy();
        }
        this.inFlight -= batch.length;
        const retry: Pending[] = [];
        results.forEach((result, i) => {
          const item = batch[i]!;
          if (result.status === 'fulfilled') {
            this.counters.written++;
            item.done();
          } else if (!client.isReady) {
            retry.push(item); // the connection went away: the script may not have run; a re-put is harmless
          } else {
            this.counters.dropped++;
            this.logger?.warnOnce('redis-write', `redis store: could not write capture ${item.id}`, result.reason);
            item.done();
          }
        });
        if (retry.length > 0) {
          const room = Math.max(0, MAX_QUEUE - this.queue.length);
          for (const item of retry.slice(room)) {
            this.counters.dropped++;
            item.done();
          }
          this.queue.unshift(...retry.slice(0, room));
          this.lost(client, this.lastError ?? new Error('connection lost'));
        }
      }
    } finally {
      this.draining = false;
      if (this.queue.length > 0 && this.status === 'ready') void this.drain();
      else if (this.queue.length > 0) this.pump();
    }
  }

  private write(client: Client, item: Pending): Promise<unknown> {
    return this.script(
      client,
      PUT_SCRIPT,
      [this.indexKey, this.rowPrefix + item.id, this.capturePrefix + item.id],
      [item.id, item.score, item.row, item.capture, String(this.ttl), String(this.limit), this.rowPrefix, this.capturePrefix],
    );
  }

  private releaseCallers(): void {
    for (const item of this.queue) {
      item.done();
      item.done = noop;
    }
  }

  // --- reads ----------------------------------------------------------------------------------------

  private async read<T>(run: (client: Client) => Promise<T>): Promise<T> {
    if (this.status === 'closed') throw new StoreError('PROBE_STORE_CLOSED', 'the redis store is closed');
    // A person or an agent is waiting: try now, whatever the write backoff says.
    if (this.status !== 'ready') await this.connect().catch(() => undefined);
    const client = this.client;
    if (this.status !== 'ready' || !client) {
      throw new StoreError('PROBE_STORE_UNREACHABLE', `Redis at ${redactUrl(this.url)} is unreachable (storage.redis.url)`, this.lastError);
    }
    return withDeadline(
      run(client),
      READ_TIMEOUT_MS,
      () => new StoreError('PROBE_STORE_TIMEOUT', `Redis at ${redactUrl(this.url)} did not answer in ${READ_TIMEOUT_MS / 1000} s`),
    );
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
      // Our own bounded queue decides what waits; the client's unbounded one would hold every capture.
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
        () => new StoreError('PROBE_STORE_TIMEOUT', `no answer in ${CONNECT_TIMEOUT_MS} ms`),
      );
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
    // A read may have been the one to reconnect: what waited in the queue goes now, not at the next retry.
    if (this.queue.length > 0) void this.drain();
  }

  private lost(client: Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    client.destroy();
    if (this.status === 'closed') return;
    this.backoff(error);
    if (this.queue.length > 0) this.pump();
  }

  private backoff(error: unknown): void {
    const delay = Math.min(100 * 2 ** this.failures, MAX_BACKOFF_MS);
    this.failures++;
    this.status = 'backoff';
    this.retryAt = Date.now() + delay + Math.floor(Math.random() * 100);
    const message = `redis store: Redis at ${redactUrl(this.url)} is unreachable; captures wait in a queue of ${MAX_QUEUE} and are dropped beyond it until it answers`;
    // Only a writer has captures waiting: a reader (CLI, dashboard, MCP) gets the read's own error instead.
    if (this.queue.length > 0) this.logger?.warnOnce('redis-unreachable', message, error);
    else this.logger?.debug(message, error);
  }

  private scheduleRetry(): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(
      () => {
        this.retryTimer = null;
        if (this.queue.length > 0) this.pump();
      },
      Math.max(0, this.retryAt - Date.now()),
    );
    this.retryTimer.unref();
  }

  private clearTimers(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  /** Resolves when nothing is queued or in flight, or after `ms`. */
  private async settle(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while ((this.queue.length > 0 || this.inFlight > 0) && Date.now() < deadline) {
      // Known down (several failed attempts): nothing to wait for.
      if (this.status === 'backoff' && (this.failures >= 3 || this.retryAt > deadline)) break;
      this.pump();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
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

function withDeadline<T>(promise: Promise<T>, ms: number, error?: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    // Ref'd on purpose: the socket is not, so this is what keeps a process alive while it waits on Redis.
    timer = setTimeout(() => reject(error ? error() : new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
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

function noop(): void {}
