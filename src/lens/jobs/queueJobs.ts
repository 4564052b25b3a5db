import { patchMethod } from '../../util/patches';
import { job, queuedJob, tag } from '../../runtime/api';
import { captureStack, resolveOrigin } from '../../origin/origin';
import { currentRuntime } from '../../runtime/state';

/* eslint-disable @typescript-eslint/no-explicit-any -- third-party classes patched by shape, across versions */

/**
 * BullMQ's Worker runs every job through `callProcessJob(job, token, signal)` (bullmq/src/classes/worker.ts, since
 * v2): wrapping it makes each job a `job` capture (name, `job_id`, the queue and attempt as tags), whatever the
 * processor, without app code. Sandboxed processors (a file path) run in a child process and are recorded there.
 */
export function patchBullmqWorker(Worker: any): (() => void) | null {
  const proto = Worker?.prototype;
  if (!proto || typeof proto.callProcessJob !== 'function') return null;
  return patchMethod(
    proto,
    'callProcessJob',
    'bullmq Worker.prototype.callProcessJob',
    'BullMQ has no hook per job run: its processor call is wrapped',
    (original) =>
      function callProcessJob(this: any, bullJob: any, ...rest: unknown[]) {
        const name = typeof bullJob?.name === 'string' && bullJob.name ? bullJob.name : 'job';
        const id = bullJob?.id === undefined || bullJob.id === null ? undefined : String(bullJob.id);
        const queue = String(bullJob?.queueName ?? this?.name ?? '?');
        const run = () =>
          queuedJob(
            name,
            () => {
              tags(`queue:${queue}`, `attempt:${Number(bullJob?.attemptsMade ?? 0) + 1}`);
              return original.call(this, bullJob, ...rest);
            },
            id,
            id === undefined ? undefined : queuedBy.get(queueKey(queue, id)),
          );
        // The Worker can take a job from Redis before the add() that queued it here has its reply: that add is
        // waited for (one round trip, at most ADD_WAIT_MS), so the job still finds the request that queued it.
        const waiting = id === undefined || queuedBy.has(queueKey(queue, id)) ? undefined : addsInFlight.get(queue);
        return waiting?.size ? settledOrLate(waiting).then(run) : run();
      },
  );
}

/**
 * Which capture of this process queued a BullMQ job: `queue:jobId` → capture id, set when `Queue#add`/`addBulk`
 * resolve inside a request (or job, test) and read when a Worker of the same process runs the job, so the job's
 * capture gets that request as `parent_id`. Nothing is written into the job (its data and options are the app's);
 * a job run by another process is not linked (that needs the app's own telemetry). Bounded: the oldest entries go
 * first when jobs queued here run elsewhere.
 */
const queuedBy = new Map<string, string>();
/** Per queue: the adds made inside a capture whose reply has not come yet. */
const addsInFlight = new Map<string, Set<Promise<unknown>>>();
const ADD_WAIT_MS = 1000;
const QUEUED_BY_MAX = 10_000;
const queueKey = (queue: string, id: string) => `${queue}\u0000${id}`;

function noteQueued(queue: string, added: unknown, captureId: string): void {
  for (const one of Array.isArray(added) ? added : [added]) {
    const id = (one as any)?.id;
    if (id === undefined || id === null) continue;
    queuedBy.set(queueKey(queue, String(id)), captureId);
    if (queuedBy.size > QUEUED_BY_MAX) queuedBy.delete(queuedBy.keys().next().value as string);
  }
}

function settledOrLate(adds: Set<Promise<unknown>>): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ADD_WAIT_MS);
    timer.unref?.();
    void Promise.allSettled([...adds]).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function trackAdd(queue: string, added: Promise<unknown>): void {
  let adds = addsInFlight.get(queue);
  if (!adds) addsInFlight.set(queue, (adds = new Set()));
  adds.add(added);
  const done = () => {
    adds.delete(added);
    if (!adds.size && addsInFlight.get(queue) === adds) addsInFlight.delete(queue);
  };
  added.then(done, done);
}

/** The capture running now, when it is not the process's own (calls outside any request, job or test). */
function enclosingCaptureId(): string | undefined {
  try {
    const recorder = currentRuntime()?.recorder;
    const unit = recorder?.activeUnit();
    return unit && unit !== recorder!.processUnit ? unit.id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * BullMQ's `Queue#add` and `addBulk` resolve with the added jobs (their ids): noted with the capture that added
 * them (see `queuedBy`). The app's call and its result are untouched.
 */
export function patchBullmqQueue(Queue: any): (() => void) | null {
  const proto = Queue?.prototype;
  if (!proto) return null;
  const undos: Array<() => void> = [];
  for (const key of ['add', 'addBulk']) {
    if (typeof proto[key] !== 'function') continue;
    const undo = patchMethod(
      proto,
      key,
      `bullmq Queue.prototype.${key}`,
      'BullMQ has no hook when a job is added: the call is watched to link the job to the request that added it',
      (original: any) =>
        function (this: any, ...args: unknown[]) {
          const result = original.apply(this, args);
          const captureId = enclosingCaptureId();
          if (captureId && result && typeof result.then === 'function') {
            const queue = String(this?.name ?? '?');
            result.then(
              (added: unknown) => {
                try {
                  noteQueued(queue, added, captureId);
                } catch {
                  // a job without its link
                }
              },
              () => undefined, // the app's own promise carries the error
            );
            trackAdd(queue, result); // after the note: a Worker waiting for this add finds the link
          }
          return result;
        },
    );
    if (undo) undos.push(undo);
  }
  return undos.length ? () => undos.forEach((undo) => undo()) : null;
}

/**
 * bee-queue calls the handler given to `Queue#process([concurrency,] handler)` per job, with a callback when the
 * handler declares two parameters: the wrapper keeps that arity, so bee-queue treats it as the app's handler.
 */
export function patchBeeQueue(Queue: any): (() => void) | null {
  const proto = Queue?.prototype;
  if (!proto || typeof proto.process !== 'function') return null;
  return patchMethod(
    proto,
    'process',
    'bee-queue Queue.prototype.process',
    'bee-queue has no hook per job run: the handler is wrapped',
    (original) =>
      function process(this: any, ...args: unknown[]) {
        const at = args.findIndex((arg) => typeof arg === 'function');
        if (at >= 0) args[at] = wrapBeeHandler(args[at] as (...a: unknown[]) => unknown, String(this?.name ?? 'bee-queue'));
        return original.apply(this, args);
      },
  );
}

function wrapBeeHandler(handler: (...a: any[]) => unknown, queue: string): (...a: any[]) => unknown {
  const idOf = (beeJob: any) => (beeJob?.id === undefined || beeJob.id === null ? undefined : String(beeJob.id));
  if (handler.length >= 2) {
    return function (this: unknown, beeJob: any, done: (error?: unknown, result?: unknown) => void) {
      const running = job(
        queue,
        () =>
          new Promise((resolve, reject) => {
            handler.call(this, beeJob, (error?: unknown, result?: unknown) => {
              done(error, result);
              if (error) reject(error as Error);
              else resolve(result);
            });
          }),
        { id: idOf(beeJob) },
      );
      running.catch(() => undefined); // the status is the capture's; bee-queue got the error through `done`
    };
  }
  return function (this: unknown, beeJob: any) {
    return job(queue, () => handler.call(this, beeJob), { id: idOf(beeJob) });
  };
}

/**
 * node-cron 3 and 4: `schedule(expression, fn, options)` and 4's `createTask` run `fn` on each tick; each run is a
 * `job` capture named by its schedule (or the task's `name`) and the line that scheduled it.
 */
export function patchNodeCron(exports: any): (() => void) | null {
  const undos: Array<() => void> = [];
  for (const owner of new Set([exports, exports?.default].filter(Boolean))) {
    for (const key of ['schedule', 'createTask']) {
      if (typeof owner[key] !== 'function') continue;
      const undo = patchMethod(
        owner,
        key,
        `node-cron ${key}`,
        'node-cron has no hook per task run: the task function is wrapped',
        (original: any) =>
          function (this: unknown, expression: unknown, fn: unknown, options?: any) {
            if (typeof fn === 'function') fn = wrapTask(fn as (...a: unknown[]) => unknown, taskName(expression, options?.name));
            return original.call(this, expression, fn, options);
          },
      );
      if (undo) undos.push(undo);
    }
  }
  return undos.length ? () => undos.forEach((undo) => undo()) : null;
}

/**
 * croner: `new Cron(pattern, [options], fn)` and `cron.schedule(fn)` both set the function through `schedule`;
 * it is wrapped there (croner's exports are getters: the class itself cannot be replaced).
 */
export function patchCroner(exports: any): (() => void) | null {
  const proto = exports?.Cron?.prototype;
  if (!proto || typeof proto.schedule !== 'function') return null;
  return patchMethod(
    proto,
    'schedule',
    'croner Cron.prototype.schedule',
    'croner has no hook per run: the scheduled function is wrapped',
    (original) =>
      function schedule(this: any, ...args: unknown[]) {
        const name = () => taskName(this?.getPattern?.() ?? this?._states?.pattern?.pattern, this?.name);
        if (typeof args[0] === 'function') args[0] = wrapTask(args[0] as (...a: unknown[]) => unknown, name());
        const result = original.apply(this, args);
        if (typeof this?.fn === 'function' && !wrapped.has(this.fn)) this.fn = wrapTask(this.fn, name());
        return result;
      },
  );
}

const wrapped = new WeakSet<object>();

function wrapTask(fn: (...a: unknown[]) => unknown, name: string): (...a: unknown[]) => unknown {
  if (wrapped.has(fn)) return fn;
  const task = function (this: unknown, ...args: unknown[]) {
    return job(name, () => fn.apply(this, args));
  };
  wrapped.add(task);
  return task;
}

/** `cron <name or schedule> (<file:line that scheduled it>)`: what a person recognises in a list. */
function taskName(schedule: unknown, name: unknown): string {
  const what = typeof name === 'string' && name ? name : typeof schedule === 'string' ? schedule : 'task';
  let where: string | null = null;
  try {
    const origin = resolveOrigin(captureStack(), currentRuntime()?.recorder.config.root ?? process.cwd());
    if (origin) where = `${origin.file}:${origin.line}`;
  } catch {
    // a name without its line
  }
  return where ? `cron ${what} (${where})` : `cron ${what}`;
}

function tags(...names: string[]): void {
  try {
    tag(...names);
  } catch {
    // never in the job's way
  }
}
