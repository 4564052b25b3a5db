import path from 'node:path';
import type { Store } from '../capture/Store';
import type { StoreApp, StoreFactory } from '../config/types';
import { ProbeConfigError } from '../config/ProbeConfigError';
import { STORAGE_KEYS } from '../config/defaults';
import { unknownSetting } from '../config/suggest';
import { FileStore } from './FileStore';
import { ThreadedStore } from './ThreadedStore';
import { readableCapture } from '../capture/readableCapture';
import type { BuildSource } from './buildSource';
import type { RedisStore } from './RedisStore';

/**
 * The built-in drivers, the one list of them: `extendStore` refuses their names, `createStore` opens them, the
 * unknown-driver error lists them. `cache` is an alias of `redis` (config/schema.ts maps it before this runs).
 */
const BUILTIN_DRIVERS: Record<string, (app: StoreApp) => FileStore | RedisStore> = {
  file: (app) =>
    new FileStore({
      path: app.config.storage.file.path,
      limit: app.config.storage.limit,
      testLimit: app.config.storage.test_limit,
      logger: app.logger,
      within: path.join(app.root, '.probe'),
    }),
  redis: (app) => {
    // Loaded lazily so apps on the file store never load the Redis client.
    const { RedisStore } = require('./RedisStore') as typeof import('./RedisStore');
    return new RedisStore({ ...app.config.storage.redis, limit: app.config.storage.limit, logger: app.logger });
  },
};
const ALIASES = ['cache'];
const isBuiltin = (name: string) => Object.hasOwn(BUILTIN_DRIVERS, name) || ALIASES.includes(name);
const registry = new Map<string, StoreFactory>();
/** In-process stores: captures must be shared across processes, so these names are refused (unless registered). */
const IN_PROCESS = new Set(['memory', 'array', 'in-memory']);

/** Registers a custom storage driver, selected with `storage.driver = name`. */
export function extendStore(name: string, factory: StoreFactory): void {
  if (typeof name !== 'string' || !name || isBuiltin(name)) {
    throw new ProbeConfigError('extendStore', `driver name must be a new non-empty string, got ${JSON.stringify(name)}`);
  }
  if (typeof factory !== 'function') throw new ProbeConfigError(`extendStore('${name}')`, 'expected a factory function (app, config) => store');
  registry.set(name, factory);
}

/** Makes the configured store. Unknown drivers are a config error naming `storage.driver`. */
export function createStore(app: StoreApp, options: { writeThread?: boolean; build?: BuildSource | null } = {}): Store {
  const { storage } = app.config;
  const driver = storage.driver;
  // Known only now (register() has run): any other key under storage must name a registered driver.
  for (const key of Object.keys(storage)) {
    if (!STORAGE_KEYS.includes(key) && !registry.has(key)) {
      throw unknownSetting(['storage', key], [...STORAGE_KEYS, ...registry.keys()], 'or the settings of a driver registered with extendStore');
    }
  }
  const builtin = Object.hasOwn(BUILTIN_DRIVERS, driver) ? BUILTIN_DRIVERS[driver]! : null;
  if (builtin) {
    const store = builtin(app);
    // An app's runtime builds and writes on the store's thread, which opens the same driver; the CLI, dashboard
    // and MCP server read on their own. Custom drivers (below) stay on the app's thread: their code and state
    // live there.
    if (options.writeThread) return new ThreadedStore(store, app.logger, undefined, { config: app.config, build: options.build ?? null });
    return store;
  }
  const factory = registry.get(driver);
  if (!factory && IN_PROCESS.has(driver)) {
    throw new ProbeConfigError(
      'storage.driver',
      `${JSON.stringify(driver)} would keep captures inside one process, where the CLI, the dashboard, the MCP server and other processes cannot read them; use "file" (one machine) or "redis" (several processes or hosts)`,
    );
  }
  if (!factory) {
    const known = [...Object.keys(BUILTIN_DRIVERS), ...ALIASES, ...registry.keys()].join(', ');
    throw new ProbeConfigError('storage.driver', `unknown driver ${JSON.stringify(driver)} (known: ${known})`);
  }
  const driverConfig = (storage[driver] && typeof storage[driver] === 'object' ? storage[driver] : {}) as Record<string, unknown>;
  const store = factory(app, { ...driverConfig, limit: storage.limit });
  for (const method of ['put', 'find', 'index', 'clear'] as const) {
    if (typeof store?.[method] !== 'function') {
      throw new ProbeConfigError('storage.driver', `driver ${JSON.stringify(driver)} returned a store without ${method}()`);
    }
  }
  return readableStore(store);
}

/**
 * A custom driver's store whose `find()` gives captures as readers get them: it keeps what it was given, and a
 * JSON body is given to `put()` once, as its text (capture/readableCapture.ts). The driver's object is not changed.
 */
function readableStore(store: Store): Store {
  const wrapped: Store = {
    put: (capture) => store.put(capture),
    find: async (id) => {
      const capture = await store.find(id);
      return capture ? readableCapture(capture) : capture;
    },
    index: () => store.index(),
    clear: () => store.clear(),
  };
  if (store.putSync) wrapped.putSync = (capture) => store.putSync!(capture);
  if (store.ids) wrapped.ids = () => store.ids!();
  if (store.watch) wrapped.watch = (onChange) => store.watch!(onChange);
  if (store.close) wrapped.close = () => store.close!();
  return wrapped;
}
