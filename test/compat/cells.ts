/**
 * The coexistence matrix: apps with their own OpenTelemetry setup or APM agent, at pinned versions, each run
 * without Probe and with Probe loaded before and after its setup, CommonJS and ESM, as a script and as a server.
 * The README's compatibility table is this list.
 */
export interface Run {
  mode: 'script' | 'server';
  server?: 'http' | 'express';
  esm?: boolean;
  order: 'before' | 'after';
  /** compare.mjs expectations; default: all of them (see `ALL`). */
  expect?: string[];
  /** Extra runner arguments (`--env K=V`, `--setup X`, `--settle ms`). */
  args?: string[];
}

export interface Cell {
  name: string;
  /** What the README's table calls it. */
  setup: string;
  dependencies: Record<string, string>;
  /** Setup files from test/compat/setups/, copied into the app as tracing.cjs / tracing.mjs. */
  cjs: string;
  mjs?: string;
  /** More files from test/compat/setups/, copied into the app under their own names. */
  files?: string[];
  runs: Run[];
}

/** A run's `--env` for Probe with `origin.enabled: false` (harness/probe.origin-off.cjs). */
export const ORIGIN_OFF = 'PROBE_CONFIG=probe.origin-off.cjs';

const APP = { axios: '1.21.1', undici: '7.30.2', express: '4.21.2' };
export const ALL = ['same-spans', 'same-headers', 'same-global', 'same-stderr', 'rows-complete', 'no-extra-rows'];
/**
 * APM agents register no OTel context manager: Probe's own is then the global one (it steps aside for any the
 * app registers later). Everything else is compared as for OTel apps.
 */
const AGENT = ALL.map((name) => (name === 'same-global' ? 'same-global-but-own-context' : name));

/**
 * Both orders, CommonJS and ESM (when the cell has an ESM setup), a script and a server of each kind: node:http
 * under CommonJS, Express under ESM, or both under CommonJS when the cell has no ESM setup (a CommonJS Express run
 * beside those two added time, not coverage). `esmArgs`: the ESM runs' own runner arguments, when the setup starts
 * differently there (an agent's documented `--setup-flags`).
 */
function everyWay(esm: boolean, args: string[] = [], expect?: string[], esmArgs: string[] = args): Run[] {
  const runs: Run[] = [];
  for (const order of ['before', 'after'] as const) {
    for (const isEsm of esm ? [false, true] : [false]) {
      const runArgs = isEsm ? esmArgs : args;
      runs.push({ mode: 'script', esm: isEsm, order, args: runArgs, expect });
      runs.push({ mode: 'server', server: isEsm ? 'express' : 'http', esm: isEsm, order, args: runArgs, expect });
    }
    if (!esm) runs.push({ mode: 'server', server: 'express', order, args, expect });
  }
  return runs;
}

const OTLP_ENV = ['--env', 'OTEL_METRICS_EXPORTER=none', '--env', 'OTEL_LOGS_EXPORTER=none'];
const ZERO_CODE = [
  '--setup',
  '@opentelemetry/auto-instrumentations-node/register',
  '--env',
  'OTEL_TRACES_EXPORTER=otlp',
  '--env',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=$SINK/v1/traces',
  '--env',
  'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json',
  '--env',
  'OTEL_SERVICE_NAME=zc',
  '--env',
  'OTEL_BSP_SCHEDULE_DELAY=200',
  '--env',
  'OTEL_NODE_RESOURCE_DETECTORS=env,host,os,process,serviceinstance',
  '--await-export',
  'POST /v1/traces',
  ...OTLP_ENV,
];

function manual(api: string, sdk: string, instrumentation: string, undici: string): Record<string, string> {
  return {
    ...APP,
    '@opentelemetry/api': api,
    '@opentelemetry/sdk-trace-node': sdk,
    '@opentelemetry/instrumentation': instrumentation,
    '@opentelemetry/instrumentation-http': instrumentation,
    '@opentelemetry/instrumentation-undici': undici,
    '@opentelemetry/exporter-trace-otlp-http': instrumentation,
  };
}

export const OTEL_CELLS: Cell[] = [
  {
    name: 'otel-api17-sdk130',
    setup: 'NodeTracerProvider + Http/Undici instrumentations, API 1.7, SDK 1.30 (separate copies)',
    dependencies: manual('1.7.0', '1.30.1', '0.57.2', '0.10.1'),
    cjs: 'otel-manual.cjs',
    mjs: 'otel-manual.mjs',
    runs: everyWay(true),
  },
  {
    name: 'otel-api18-sdk130',
    setup: 'NodeTracerProvider + Http/Undici instrumentations, API 1.8, SDK 1.30 (separate copies)',
    dependencies: manual('1.8.0', '1.30.1', '0.57.2', '0.10.1'),
    cjs: 'otel-manual.cjs',
    mjs: 'otel-manual.mjs',
    runs: everyWay(true),
  },
  {
    name: 'otel-api190-sdk20',
    setup: 'NodeTracerProvider + Http/Undici instrumentations, API 1.9.0, SDK 2.0 (separate copies)',
    dependencies: manual('1.9.0', '2.0.1', '0.200.0', '0.11.0'),
    cjs: 'otel-manual.cjs',
    mjs: 'otel-manual.mjs',
    runs: everyWay(true),
  },
  {
    name: 'otel-api191-sdk212',
    setup: "NodeTracerProvider + Http/Undici instrumentations, API 1.9.1, SDK 2.12 (Probe's own copies, deduped)",
    dependencies: manual('1.9.1', '2.12.0', '0.223.0', '0.33.0'),
    cjs: 'otel-manual.cjs',
    mjs: 'otel-manual.mjs',
    runs: everyWay(true),
  },
  {
    name: 'sdk-node-0223',
    setup: '@opentelemetry/sdk-node 0.223 + auto-instrumentations-node 0.81 (in code and zero-code)',
    dependencies: {
      ...APP,
      '@opentelemetry/api': '1.9.1',
      '@opentelemetry/sdk-node': '0.223.0',
      '@opentelemetry/auto-instrumentations-node': '0.81.2',
      '@opentelemetry/exporter-trace-otlp-http': '0.223.0',
    },
    cjs: 'sdk-node.cjs',
    mjs: 'sdk-node.mjs',
    runs: [...everyWay(true, OTLP_ENV), ...everyWay(false, ZERO_CODE)],
  },
  {
    name: 'sdk-node-057',
    setup: '@opentelemetry/sdk-node 0.57 + auto-instrumentations-node 0.56 (in code and zero-code)',
    dependencies: {
      ...APP,
      '@opentelemetry/api': '1.9.0',
      '@opentelemetry/sdk-node': '0.57.2',
      '@opentelemetry/auto-instrumentations-node': '0.56.1',
      '@opentelemetry/exporter-trace-otlp-http': '0.57.2',
    },
    cjs: 'sdk-node.cjs',
    mjs: 'sdk-node.mjs',
    runs: [...everyWay(true, OTLP_ENV), ...everyWay(false, ZERO_CODE)],
  },
];

const SENTRY = (version: string): Cell => ({
  name: `sentry-${version.split('.')[0]}`,
  setup: `@sentry/node ${version} with tracing`,
  dependencies: { ...APP, '@sentry/node': version },
  cjs: 'sentry.cjs',
  mjs: 'sentry.mjs',
  runs: everyWay(true),
});

export const SENTRY_CELLS: Cell[] = [SENTRY('8.55.2'), SENTRY('9.47.2'), SENTRY('10.78.0')];

const DD_ENV = [
  '--env',
  'DD_TRACE_AGENT_URL=$SINK',
  '--env',
  'DD_INSTRUMENTATION_TELEMETRY_ENABLED=false',
  '--env',
  'DD_REMOTE_CONFIGURATION_ENABLED=false',
  '--env',
  'DD_TRACE_FLUSH_INTERVAL=0',
  '--settle',
  '1500',
];
/** elastic-apm-node's documented ESM start: its loader, then `-r elastic-apm-node/start.js`, configured by ELASTIC_APM_* as the CJS setup's options. */
const ELASTIC_ESM = [
  '--setup-flags',
  '--experimental-loader=elastic-apm-node/loader.mjs -r elastic-apm-node/start.js -r ./tracing.cjs',
  '--env',
  'ELASTIC_APM_SERVER_URL=$SINK',
  '--env',
  'ELASTIC_APM_SERVICE_NAME=compat',
  '--env',
  'ELASTIC_APM_CENTRAL_CONFIG=false',
  '--env',
  'ELASTIC_APM_CLOUD_PROVIDER=none',
  '--env',
  'ELASTIC_APM_METRICS_INTERVAL=0s',
  '--env',
  'ELASTIC_APM_LOG_LEVEL=off',
  '--env',
  'ELASTIC_APM_API_REQUEST_TIME=100ms',
  '--settle',
  '800',
];
/**
 * The agent connects to the runner's collector stand-in over TLS (it speaks nothing else; loopback.crt trusted
 * through its `certificates` setting), harvests on shutdown and writes its own distributed-tracing headers
 * (newrelic, traceparent, tracestate). Every transaction sampled (root sampler always_on): the comparison does not
 * depend on the adaptive sampler's draw. Its one metadata lookup left on is ECS's, at the sink (loopback), made
 * when it connects without any mark of the agent: Probe records no row of it (told by its stack) and the connect
 * payload names the container id the sink answered (same-vendors). No cloud lookup (they would leave the
 * machine): AWS's is stood in for (newrelic-aws-off.cjs: ECS's needs detect_aws), the others off. A server gets
 * its request once the agent is connected (agent_settings follows connect), as a server in use would be.
 */
const NR_ENV = [
  '--env',
  'NEW_RELIC_NO_CONFIG_FILE=true',
  '--env',
  'NEW_RELIC_APP_NAME=compat',
  '--env',
  'NEW_RELIC_LICENSE_KEY=0123456789abcdef0123456789abcdef0123NRAL',
  '--env',
  'NEW_RELIC_HOST=127.0.0.1',
  '--env',
  'NEW_RELIC_PORT=$TLS_SINK_PORT',
  '--env',
  'NEW_RELIC_CERTIFICATES=$TLS_SINK_CA',
  '--env',
  'NEW_RELIC_LOG_ENABLED=false',
  '--env',
  'NEW_RELIC_DISTRIBUTED_TRACING_ENABLED=true',
  '--env',
  'NEW_RELIC_DISTRIBUTED_TRACING_SAMPLER_ROOT=always_on',
  ...['AZURE', 'AZUREFUNCTION', 'GCP', 'PCF', 'DOCKER', 'KUBERNETES'].flatMap((cloud) => ['--env', `NEW_RELIC_UTILIZATION_DETECT_${cloud}=false`]),
  '--env',
  'NEW_RELIC_UTILIZATION_DETECT_AWS=true',
  '--env',
  'ECS_CONTAINER_METADATA_URI_V4=$SINK/ecs/v4/compat',
  '--await-sink',
  'newrelic agent_settings',
];
/** newrelic's documented ESM start (`--import newrelic/esm-loader.mjs -r newrelic`); tracing.cjs only adds the flush. */
const NR_ESM = ['--setup-flags', '--import newrelic/esm-loader.mjs -r ./newrelic-aws-off.cjs -r newrelic -r ./tracing.cjs', ...NR_ENV];
/**
 * With origins off Probe takes a stack only while an agent is loaded, a short one, to tell the agent's own calls:
 * the ECS lookup's sender is within it, in both orders (rows then carry no origin: `no-origin`).
 */
const NR_ORIGIN_OFF: Run[] = (['before', 'after'] as const).flatMap((order) => [
  { mode: 'script' as const, order, args: [...NR_ENV, '--env', ORIGIN_OFF], expect: [...AGENT, 'same-vendors', 'no-origin'] },
  { mode: 'server' as const, server: 'http' as const, order, args: [...NR_ENV, '--env', ORIGIN_OFF], expect: [...AGENT, 'same-vendors', 'no-origin'] },
]);

export const AGENT_CELLS: Cell[] = [
  {
    name: 'dd-trace-5',
    setup: 'dd-trace 5.132 (Datadog agent stand-in)',
    dependencies: { ...APP, 'dd-trace': '5.132.0', '@msgpack/msgpack': '3.1.3' },
    cjs: 'dd-trace.cjs',
    mjs: 'dd-trace.mjs',
    runs: everyWay(true, DD_ENV, AGENT),
  },
  {
    name: 'elastic-apm-4',
    setup: 'elastic-apm-node 4.9 (APM server stand-in)',
    dependencies: { ...APP, 'elastic-apm-node': '4.9.0' },
    cjs: 'elastic.cjs',
    runs: everyWay(true, ['--settle', '800'], AGENT, ELASTIC_ESM),
  },
  {
    name: 'newrelic-13',
    setup: 'newrelic 13.9 (collector stand-in: connects, harvests, propagates)',
    dependencies: { ...APP, newrelic: '13.9.2' },
    cjs: 'newrelic.cjs',
    files: ['newrelic-aws-off.cjs'],
    runs: [...everyWay(true, NR_ENV, [...AGENT, 'same-vendors'], NR_ESM), ...NR_ORIGIN_OFF],
  },
];
