import { existsSync } from 'node:fs';
import path from 'node:path';
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { ProbeConfig } from './types';
import { STORE_THREAD_EXEC_ARGV, WRITE_THREAD_MARK } from '../util/threadMark';

/**
 * A user's mask and a user's name pattern are code Probe calls synchronously while it builds a capture, on the app's
 * thread (the first captures of a process, and those built at its exit) or on the store's thread. A synchronous
 * function cannot be interrupted on its own thread: a mask that never returns, or a RegExp that backtracks without end
 * on an unlucky name, would hold that thread for good (and a finished script would never exit). So they run on a
 * thread of their own, this runner's, and the caller waits for the answer at most DEADLINE_MS (Atomics.wait). Past
 * it the thread is stopped (V8 interrupts a loop and a backtracking RegExp alike), the value counts as secret (masked
 * whole: the caller fails closed), and the next call starts a new thread.
 *
 * The masks are loaded there from the config file (UserPartsSource: a mask cannot cross threads); a RegExp crosses as
 * its source and flags. A mask given to start() in code has no file to load it from: it runs on the calling thread.
 */
export const DEADLINE_MS = 2_000;
/** How long the calling thread waits for the runner's thread to start and load the config (as the config's trial). */
export const START_DEADLINE_MS = 10_000;

/** The runner's state, shared: [0] where the exchange is. */
export const State = { starting: -1, idle: 0, asked: 1, answered: 2 } as const;

export type UserPartRequest = { kind: 'mask'; setting: string; value: string } | { kind: 'test'; source: string; flags: string; name: string };
export type UserPartAnswer = { ok: true; value: string | boolean } | { ok: false; reason: string };
/** Why a call had no answer: it failed (threw, no such part) or ran past the deadline. */
export interface UserPartFailure {
  failed: 'threw' | 'timeout' | 'unavailable';
  message: string;
}

/** Where the config the masks come from is loaded: the store's BuildSource (store/buildSource.ts) has this shape. */
export interface UserPartsSource {
  cwd: string;
  env: Record<string, string>;
  overrides: ProbeConfig;
}

const SCRIPT = [path.join(__dirname, 'userPartsThread.js'), path.join(__dirname, '..', '..', 'dist', 'config', 'userPartsThread.js')].find((file) =>
  existsSync(file),
);

let source: UserPartsSource | null = null;
/** True on the runner's own thread: there user parts are called as they are. */
let runsHere = false;
let runner: UserPartsRunner | null = null;

/** Where the runner's thread loads the config's masks from (null: masks given in code, called on this thread). */
export function setUserPartsSource(from: UserPartsSource | null): void {
  source = from;
}

/** Marks the runner's own thread. */
export function runUserPartsHere(): void {
  runsHere = true;
}

/** The runner, or null when user parts are called on this thread (the runner's thread; no thread script). */
export function userPartsRunner(kind: UserPartRequest['kind']): UserPartsRunner | null {
  if (runsHere || !SCRIPT) return null;
  if (kind === 'mask' && !source) return null;
  return (runner ??= new UserPartsRunner());
}

/** Waits while the state holds `value`, at most `ms`: true when it changed in time. */
function waitWhile(state: Int32Array, value: number, ms: number): boolean {
  const end = performance.now() + ms;
  for (;;) {
    if (Atomics.load(state, 0) !== value) return true;
    const left = end - performance.now();
    if (left <= 0) return false;
    Atomics.wait(state, 0, value, left);
  }
}

export class UserPartsRunner {
  private worker: Worker | null = null;
  private port: MessagePort | null = null;
  private state: Int32Array | null = null;
  /** The source the running thread loaded (a thread started before the source was set has no masks). */
  private loaded: UserPartsSource | null = null;

  /** Starts the thread now, without waiting for it: the first call then seldom waits for its start. */
  warm(): void {
    if (!this.worker) this.start();
  }

  call(request: UserPartRequest): UserPartAnswer | UserPartFailure {
    if (this.worker && request.kind === 'mask' && this.loaded !== source) this.stop();
    if (!this.worker && !this.start()) return { failed: 'unavailable', message: 'no thread to run it on' };
    const state = this.state!;
    if (!waitWhile(state, State.starting, START_DEADLINE_MS)) {
      this.stop();
      return { failed: 'timeout', message: `its thread did not start within ${START_DEADLINE_MS / 1000} s` };
    }
    this.port!.postMessage(request);
    Atomics.store(state, 0, State.asked);
    Atomics.notify(state, 0);
    if (!waitWhile(state, State.asked, DEADLINE_MS)) {
      this.stop();
      // The next call finds a thread already starting, rather than waiting for one to start.
      this.start();
      return { failed: 'timeout', message: `did not return within ${DEADLINE_MS / 1000} s` };
    }
    const answer = receiveMessageOnPort(this.port!)?.message as UserPartAnswer | undefined;
    Atomics.store(state, 0, State.idle);
    if (!answer) return { failed: 'unavailable', message: 'no answer' };
    return answer;
  }

  private start(): boolean {
    const shared = new SharedArrayBuffer(4);
    const state = new Int32Array(shared);
    Atomics.store(state, 0, State.starting);
    const { port1, port2 } = new MessageChannel();
    try {
      this.worker = new Worker(SCRIPT!, {
        workerData: { [WRITE_THREAD_MARK]: true, shared, port: port2, source },
        transferList: [port2],
        // As the store's thread: the config's `probe` import gets the light entry.
        execArgv: STORE_THREAD_EXEC_ARGV,
        ...(source ? { env: source.env } : {}),
        stdout: true,
        stderr: true,
      });
    } catch {
      return false;
    }
    // Never holds the process: an app's exit does not wait for it.
    this.worker.unref();
    this.worker.on('error', () => undefined);
    port1.unref();
    this.port = port1;
    this.state = state;
    this.loaded = source;
    return true;
  }

  private stop(): void {
    // V8 stops the thread's JavaScript where it is, an endless loop or a backtracking RegExp too.
    void this.worker?.terminate().catch(() => undefined);
    this.port?.close();
    this.worker = null;
    this.port = null;
    this.state = null;
  }
}
