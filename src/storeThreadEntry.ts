/**
 * What `probe` is to the app's config file when the store's thread loads it (package.json's `probe-store-thread`
 * export condition, which ThreadedStore starts that thread with). The config file names the same parts as in the
 * app (`import { defineConfig, JsonCapture } from 'probe'`, as `probe install` writes it), but the package's main
 * entry loads the runtime with it: OpenTelemetry's SDK and instrumentations, 358 modules where the thread needs 52,
 * +8 MB of the thread's heap and +11 MB of the process's RSS for every app with the installed config (peak
 * RSS at 50 KB answers). Here the parts a config holds are the very ones the thread builds with; those of the app's
 * runtime, which a config has no use for, load their module only when called, so a config that calls one anyway
 * behaves as it does with the main entry. Every name of src/index.ts is here (test/store/thread-config-entry.test.ts):
 * an ES module config reads the names a CommonJS entry exports when it loads, so a missing one fails the load.
 */
import type * as Start from './start';
import type * as Api from './runtime/api';
import type * as Redis from './store/RedisStore';

export { defineConfig } from './config/defineConfig';
export { extendStore } from './store/registry';
export { FileStore } from './store/FileStore';
export { FullMask } from './mask/FullMask';
export { PartialMask } from './mask/PartialMask';
export { JsonCapture } from './response/JsonCapture';
export { GraphqlCapture } from './response/GraphqlCapture';
export { EventStreamCapture } from './response/EventStreamCapture';
export { ProbeConfigError } from './config/ProbeConfigError';

const api = () => require('./runtime/api') as typeof Api;

export const start: typeof Start.start = (...args) => (require('./start') as typeof Start).start(...args);
export const pool: typeof Api.pool = (...args) => api().pool(...args);
export const job: typeof Api.job = (...args) => api().job(...args);
export const command: typeof Api.command = (...args) => api().command(...args);
export const label: typeof Api.label = (...args) => api().label(...args);
export const tag: typeof Api.tag = (...args) => api().tag(...args);

/**
 * The Redis driver loads the OpenTelemetry API with it (its own commands are not recorded). `new RedisStore(...)`
 * here makes the real one (a constructor that returns an object gives that object to `new`).
 */
export const RedisStore = function RedisStore(this: unknown, ...args: ConstructorParameters<typeof Redis.RedisStore>) {
  return new (require('./store/RedisStore') as typeof Redis).RedisStore(...args);
} as unknown as typeof Redis.RedisStore;
