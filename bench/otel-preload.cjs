// Plain OpenTelemetry, as an app would set it up by hand: a tracer provider with a batch processor and an
// exporter that drops everything, plus the http and undici instrumentations Probe builds on (bench/lib/plain-otel.cjs).
// Used by the benchmarks as variant (b): `node --require bench/otel-preload.cjs app.js`.
'use strict';
require('./lib/plain-otel.cjs').startPlainOtel();
