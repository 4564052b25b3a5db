import { InstrumentationBase, InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import type { Logger } from '../../util/logger';
import type { SourceFactory } from '../../runtime/UnitSource';
import { patchBeeQueue, patchBullmqQueue, patchBullmqWorker, patchCroner, patchNodeCron } from './queueJobs';

/* eslint-disable @typescript-eslint/no-explicit-any -- module exports patched by shape */

type Patch = (exports: any) => (() => void) | null;

/** BullMQ: the Worker's job runs, and the Queue's adds (to link a job to the request that added it). */
function patchBullmq(exports: any): (() => void) | null {
  const undos = [patchBullmqWorker(exports.Worker), patchBullmqQueue(exports.Queue)].filter((undo) => undo !== null);
  return undos.length ? () => undos.forEach((undo) => undo()) : null;
}

/**
 * Queue consumers and scheduled tasks as `job` captures with no app code: BullMQ workers, bee-queue,
 * node-cron and croner, patched as their modules load (CommonJS, and ESM through the loader hook), each patch
 * through the ledger (util/patches).
 */
export class JobInstrumentation extends InstrumentationBase {
  private readonly undos = new WeakMap<object, () => void>();

  constructor(private readonly probeLogger: Logger) {
    super('probe-jobs', '0.1.0', {});
  }

  protected init() {
    return [
      this.module('bullmq', ['>=2.0.0 <6'], patchBullmq),
      this.module('bee-queue', ['>=1.0.0 <2'], (exports) => patchBeeQueue(exports)),
      this.module('node-cron', ['>=3.0.0 <5'], patchNodeCron),
      this.module('croner', ['>=5.0.0 <11'], patchCroner),
    ];
  }

  private module(name: string, versions: string[], patch: Patch) {
    return new InstrumentationNodeModuleDefinition(
      name,
      versions,
      (exports) => {
        if (!exports || this.undos.has(exports)) return exports;
        try {
          const undo = patch(exports);
          if (undo) this.undos.set(exports, undo);
        } catch (error) {
          this.probeLogger.warnOnce(`jobs-${name}`, `could not record ${name} jobs`, error);
        }
        return exports;
      },
      (exports) => {
        const undo = exports && this.undos.get(exports);
        if (!undo) return;
        this.undos.delete(exports);
        undo();
      },
    );
  }
}

/** Queue consumers and scheduled tasks (BullMQ, bee-queue, node-cron, croner) as a unit source: job captures. */
export const queueJobUnits: SourceFactory = ({ logger }) => ({
  name: 'queue jobs',
  instrumentations: [new JobInstrumentation(logger)],
  enable: () => () => {},
});
