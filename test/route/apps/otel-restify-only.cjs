// Only restify's OpenTelemetry instrumentation, no tracer provider or HTTP instrumentation of the app's: the route
// it writes on the request's RPC metadata reaches the server span Probe's own HTTP instrumentation makes.
const { registerInstrumentations } = require('@opentelemetry/instrumentation');
const { RestifyInstrumentation } = require('@opentelemetry/instrumentation-restify');

registerInstrumentations({ instrumentations: [new RestifyInstrumentation()] });
