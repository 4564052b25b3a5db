// One small service of a flow: answers every request after calling each URL of NEXT (comma list) in turn, with
// CLIENT `http` (node:http, a keep-alive agent) or `fetch`. APP_OTEL=1: the app's own OpenTelemetry setup (W3C
// propagation on). Prints `listening <port>` when ready.
if (process.env.APP_OTEL === '1') {
  const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');
  const { registerInstrumentations } = require('@opentelemetry/instrumentation');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');
  const { UndiciInstrumentation } = require('@opentelemetry/instrumentation-undici');
  new NodeTracerProvider().register();
  registerInstrumentations({ instrumentations: [new HttpInstrumentation(), new UndiciInstrumentation()] });
}
const http = require('node:http');

const next = (process.env.NEXT || '').split(',').filter(Boolean);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(process.env.MAX_SOCKETS || 8) });
const delay = Number(process.env.DELAY_MS || 0);

function callHttp(url) {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve(body));
    });
    request.on('error', reject);
  });
}

async function callFetch(url) {
  const response = await fetch(url);
  return response.text();
}

const call = process.env.CLIENT === 'fetch' ? callFetch : callHttp;

const server = http.createServer(async (request, response) => {
  try {
    const tag = new URL(request.url, 'http://x').searchParams.get('tag') || '';
    const answers = [];
    for (const url of next) answers.push(JSON.parse(await call(`${url}?tag=${encodeURIComponent(tag)}`)));
    if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ service: process.env.OTEL_SERVICE_NAME || require('./package.json').name, tag, answers }));
  } catch (error) {
    response.statusCode = 502;
    response.end(JSON.stringify({ error: String(error) }));
  }
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
