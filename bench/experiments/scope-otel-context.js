'use strict';
// Experiment: the fetch call and the pool carried in the OTel context instead of two AsyncLocalStorage instances.
Object.defineProperty(exports, '__esModule', { value: true });
exports.fetchScope = exports.poolScope = void 0;
exports.currentPool = currentPool;
const api_1 = require('@opentelemetry/api');
function contextScope(name) {
  const key = (0, api_1.createContextKey)(name);
  return {
    getStore: () => api_1.context.active().getValue(key),
    run: (store, fn, ...args) => api_1.context.with(api_1.context.active().setValue(key, store), fn, undefined, ...args),
  };
}
exports.poolScope = contextScope('probe.pool');
exports.fetchScope = contextScope('probe.fetch');
function currentPool(unit) {
  const pool = exports.poolScope.getStore();
  return pool && pool.unit === unit ? pool.number : null;
}
