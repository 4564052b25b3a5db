import type { Recorder } from './Recorder';
import type { Tracer } from '@opentelemetry/api';

export interface ProbeRuntime {
  recorder: Recorder;
  tracer: Tracer;
  shutdown(): Promise<void>;
}

const KEY = Symbol.for('probe.runtime');
type Holder = { [KEY]?: ProbeRuntime };

/**
 * The running instance lives on globalThis so that the preload and an app's own `import 'probe'` share it
 * even if the package were loaded twice (CJS and ESM, or two copies).
 */
export function currentRuntime(): ProbeRuntime | undefined {
  return (globalThis as Holder)[KEY];
}

export function setRuntime(runtime: ProbeRuntime | undefined): void {
  (globalThis as Holder)[KEY] = runtime;
}
