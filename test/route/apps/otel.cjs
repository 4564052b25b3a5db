// The app's own OpenTelemetry setup: node:http and Express instrumentations into an in-memory exporter. At exit
// it writes what its spans say (name, kind, http.route) to $ROUTE_SPANS, to compare runs with and without Probe.
const fs = require('node:fs');
const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');
const { InMemorySpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { registerInstrumentations } = require('@opentelemetry/instrumentation');
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');
const { ExpressInstrumentation } = require('@opentelemetry/instrumentation-express');

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
registerInstrumentations({ instrumentations: [new HttpInstrumentation(), new ExpressInstrumentation()] });

process.on('exit', () => {
  const spans = exporter
    .getFinishedSpans()
    .map((span) => ({ name: span.name, kind: span.kind, route: span.attributes['http.route'] ?? null, target: span.attributes['url.path'] ?? span.attributes['http.target'] ?? null }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  fs.writeFileSync(process.env.ROUTE_SPANS, JSON.stringify(spans));
});
