// The app's own OpenTelemetry setup for restify: node:http and restify instrumentations into an in-memory exporter.
// At exit it writes its server spans' http.route to $ROUTE_SPANS, to compare runs with and without Probe.
const fs = require('node:fs');
const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');
const { InMemorySpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { registerInstrumentations } = require('@opentelemetry/instrumentation');
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');
const { RestifyInstrumentation } = require('@opentelemetry/instrumentation-restify');

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
registerInstrumentations({ instrumentations: [new HttpInstrumentation(), new RestifyInstrumentation()] });

process.on('exit', () => {
  const spans = exporter
    .getFinishedSpans()
    .filter((span) => span.kind === 1)
    .map((span) => ({ path: span.attributes['url.path'] ?? span.attributes['http.target'] ?? null, route: span.attributes['http.route'] ?? null }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  if (process.env.ROUTE_SPANS) fs.writeFileSync(process.env.ROUTE_SPANS, JSON.stringify(spans));
  else console.error(JSON.stringify(spans));
});
