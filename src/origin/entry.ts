import { context, createContextKey } from '@opentelemetry/api';
import type { Origin } from '../capture/types';
import { FETCH_STACK_LIMIT, captureStack, capturingOrigins, resolveOrigin } from './origin';

/**
 * The app's stack where its code handed a call to a client library, for the calls that library makes after
 * an async hop (got, superagent, Stripe, Anthropic start the request a few turns later; ky, got and the SDKs
 * retry from a timer): by then no app frame is on the stack, and V8's async stack traces stop at the
 * library's own promise plumbing. Taken once per library call, resolved once, shared by its retries.
 */
export interface EntryStack {
  sites: NodeJS.CallSite[] | null;
  origin?: Origin | null;
  /**
   * The call's own stack is not the app's call: an app callback the library runs later (an undici interceptor that
   * dispatches on a later turn) would otherwise stand for it. The entry is the call's code line.
   */
  only?: boolean;
}

// In the OTel context, which is propagated anyway (see scope.ts for why not an AsyncLocalStorage).
const KEY = createContextKey('probe.entry');
const MARK = Symbol.for('probe.entry.stack');

/** The entry stack of the library call in progress (in this async context), or null. */
export function currentEntry(): EntryStack | null {
  return (context.active().getValue(KEY) as EntryStack | undefined) ?? null;
}

/**
 * Runs `fn` as a library entry called by the app: the caller's stack is taken and carried in the async
 * context for every request the library makes for it. An entry inside another (a library calling its own
 * entry points, a retry) keeps the outer one: that is where the app's line is.
 */
export function enterLibrary<R>(fn: () => R, below: Function, stack: EntryStack | null = null): R {
  if (currentEntry()) return fn();
  const entry = stack ?? take(below);
  if (!entry) return fn();
  return context.with(context.active().setValue(KEY, entry), fn);
}

/**
 * Frames a lens captures of the call's own stack inside a library entry: enough for an app callback the
 * library called (a hook, an event listener) that made the call itself; the library's own deep frames
 * below it would be walked for nothing, since the entry holds the app's line. Outside one, `limit`.
 */
const INSIDE_ENTRY_LIMIT = 10;

export function callStackLimit(limit?: number, entry: EntryStack | null = currentEntry()): number | undefined {
  return entry ? INSIDE_ENTRY_LIMIT : limit;
}

/** For lazy builders (superagent): the caller's stack kept on the object the library hands back. */
export function markEntry(target: unknown, below: Function): void {
  if (!target || typeof target !== 'object' || (target as Record<symbol, unknown>)[MARK] || currentEntry()) return;
  const entry = take(below);
  if (entry) Object.defineProperty(target, MARK, { value: entry, configurable: true });
}

/** The entry stack `markEntry` kept on `target`, if any. */
export function markedEntry(target: unknown): EntryStack | null {
  return target && typeof target === 'object' ? ((target as Record<symbol, EntryStack | undefined>)[MARK] ?? null) : null;
}

/** The app's stack above `below` as an entry (null when origins are off), for `enterLibrary` on a later turn. */
export function takeEntry(below: Function): EntryStack | null {
  return take(below);
}

function take(below: Function): EntryStack | null {
  // Only for origins: an agent's own calls are told by their own stack.
  if (!capturingOrigins()) return null;
  // The app's frame is a few library frames above the entry: a short capture.
  const sites = captureStack(FETCH_STACK_LIMIT, below);
  return sites ? { sites } : null;
}

/** The entry's origin, resolved once for all the calls (and retries) it made; its call sites are let go. */
export function entryOrigin(entry: EntryStack | null, root: string): Origin | null {
  if (!entry) return null;
  if (entry.origin === undefined) {
    entry.origin = resolveOrigin(entry.sites, root);
    entry.sites = null;
  }
  return entry.origin;
}
