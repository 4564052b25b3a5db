// ESM form: OpenTelemetry's ESM loader hook, then the same setup as otel-manual.cjs (copied beside it as tracing.cjs).
import { register, createRequire } from 'node:module';
register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
const require = createRequire(import.meta.url);
require('./tracing.cjs');
