import { parentPort } from 'node:worker_threads';
import { findingsOf } from '../findings/findingsOf';
import type { FindingJob } from './ThreadedFindings';

/**
 * The thread a long-lived reader (dashboard, MCP server) computes findings on: one capture at a time, in the order
 * asked. Pure work on what it is sent; it reads no store and writes nothing.
 */
parentPort?.on('message', (job: FindingJob) => {
  try {
    parentPort!.postMessage({ job: job.job, findings: findingsOf(job.capture, job.settings, job.stats, job.statsInclude, job.templates) });
  } catch (error) {
    parentPort!.postMessage({ job: job.job, error: (error as Error)?.message ?? String(error) });
  }
});
