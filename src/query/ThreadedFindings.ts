import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Capture } from '../capture/types';
import type { EndpointStat, Finding, FindingSettings } from '../findings/Finding';
import { WRITE_THREAD_MARK } from '../util/threadMark';
import type { EndpointTemplates } from '../builder/endpointTemplates';
import { StoreFindings } from './findings';

/** One capture's findings asked of the thread (query/findingsThread.ts). */
export interface FindingJob {
  job: number;
  capture: Pick<Capture, 'duration'> & { sections: Pick<Capture['sections'], 'http'> };
  settings: FindingSettings;
  stats: Map<string, EndpointStat>;
  statsInclude: boolean;
  templates?: EndpointTemplates;
}

interface FindingAnswer {
  job: number;
  findings?: Finding[];
  error?: string;
}

/** Findings kept, by capture id, version and stats: a page asks again as it is opened and its captures stream in. */
export const KEPT_FINDINGS = 32;

/** The compiled thread script: beside this file, or in dist/ when this runs from the TypeScript sources (tests). */
const THREAD_SCRIPT = [path.join(__dirname, 'findingsThread.js'), path.join(__dirname, '..', '..', 'dist', 'query', 'findingsThread.js')].find((file) =>
  existsSync(file),
);

/**
 * StoreFindings whose rules run on a worker thread, for a reader that serves many requests from one event loop
 * (the dashboard, the MCP server): the rules are linear in a capture's calls, but a capture with max_rows raised to
 * tens of thousands takes seconds, and every other request would wait for them. One thread, one capture at a time
 * (a bound on the CPU findings take); a capture asked again while its findings are made waits for the same answer,
 * and the answers of the last KEPT_FINDINGS captures are kept. Without a thread (a partial install, a runtime
 * without workers) the rules run in place, as before.
 */
export class ThreadedFindings extends StoreFindings {
  private worker: Worker | null = null;
  private nextJob = 0;
  private readonly waiting = new Map<number, { resolve(findings: Finding[]): void; reject(error: Error): void }>();
  private readonly kept = new Map<string, Promise<Finding[]>>();
  private closed = false;

  protected override compute(
    capture: Capture,
    stats: Map<string, EndpointStat>,
    statsInclude: boolean,
    statsKey: string,
    templates?: EndpointTemplates,
  ): Promise<Finding[]> {
    const rows = Array.isArray(capture.sections?.http) ? capture.sections.http.length : 0;
    // A capture's version: a running command's capture is stored again with more calls and a later end.
    const key = `${capture.id}\0${capture.ended_at}\0${capture.duration}\0${rows}\0${statsInclude}\0${statsKey}`;
    const known = this.kept.get(key);
    if (known) {
      this.kept.delete(key);
      this.kept.set(key, known);
      return known;
    }
    const worker = this.thread();
    if (!worker) return super.compute(capture, stats, statsInclude, statsKey, templates);
    const job = this.nextJob++;
    const answer = new Promise<Finding[]>((resolve, reject) => {
      this.waiting.set(job, { resolve, reject });
      if (this.waiting.size === 1) worker.ref();
      // Only what the rules read is copied to the thread: the copy is made on this event loop.
      const read = { duration: capture.duration, sections: { http: capture.sections.http } };
      worker.postMessage({ job, capture: read, settings: this.settings, stats, statsInclude, templates } satisfies FindingJob);
    });
    this.kept.set(key, answer);
    // A failed answer is not kept: the next request asks again.
    answer.catch(() => this.kept.get(key) === answer && this.kept.delete(key));
    while (this.kept.size > KEPT_FINDINGS) this.kept.delete(this.kept.keys().next().value!);
    return answer;
  }

  /** Stops the thread; findings still being made are answered with an error. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    this.fail(new Error('findings: closed'));
    if (worker) await worker.terminate().catch(() => undefined);
  }

  private thread(): Worker | null {
    if (this.worker || this.closed || !THREAD_SCRIPT) return this.worker;
    let worker: Worker;
    try {
      // Marked as the store's thread is: Probe's preload, if the reader runs under it, has no app to watch there.
      worker = new Worker(THREAD_SCRIPT, { workerData: { [WRITE_THREAD_MARK]: true }, execArgv: ['--no-warnings'] });
    } catch {
      return null;
    }
    // Idle, the thread keeps no process alive; it is held only while findings are being made.
    worker.unref();
    worker.on('message', (answer: FindingAnswer) => {
      const waiter = this.waiting.get(answer.job);
      if (!waiter) return;
      this.waiting.delete(answer.job);
      if (this.waiting.size === 0) worker.unref();
      if (answer.error !== undefined) waiter.reject(new Error(`findings: ${answer.error}`));
      else waiter.resolve(answer.findings ?? []);
    });
    const lost = (error: Error) => {
      if (this.worker !== worker) return;
      // The next request starts a new thread.
      this.worker = null;
      this.fail(error);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`findings: thread ended (${code})`)));
    this.worker = worker;
    return worker;
  }

  private fail(error: Error): void {
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}
