// Sentry's Node SDK with tracing, as its docs set it up (init before anything else, every transaction
// sampled), sending envelopes to BENCH_SENTRY_DSN (a local sink in bench/peers.mjs).
// Used as a variant of bench/peers.mjs: `node --require bench/sentry-preload.cjs app.cjs`.
'use strict';
const Sentry = require('@sentry/node');

Sentry.init({
  dsn: process.env.BENCH_SENTRY_DSN,
  tracesSampleRate: 1,
  beforeSendTransaction(event) {
    globalThis.__benchSpans = (globalThis.__benchSpans ?? 0) + 1 + (event.spans?.length ?? 0);
    return event;
  },
});
globalThis.__benchFlush = () => Sentry.flush(2000);
