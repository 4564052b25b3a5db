import path from 'node:path';

/**
 * Where APM agents and telemetry SDKs keep the code that talks for themselves: a call whose stack reaches one of
 * these folders (before any app frame) is the agent's own and is not recorded. Only internal code: never an
 * agent's instrumentation (its wrappers around node:http, undici and the app's frameworks sit on every app
 * call's stack). Paths under `node_modules/<package>/`, with `/` (matched against paths with `/`).
 */
const INTERNALS: Record<string, string[]> = {
  // New Relic: cloud and container metadata lookups when the agent connects (AWS's 169.254.169.254, Azure's, GCP's,
  // ECS's ECS_CONTAINER_METADATA_URI_V4), unmarked:
  // https://github.com/newrelic/node-newrelic/tree/main/lib/utilization; the collector client (marked by its
  // path too): https://github.com/newrelic/node-newrelic/tree/main/lib/collector
  newrelic: ['lib/utilization/', 'lib/collector/'],
  // dd-trace: every request to the Datadog agent or intake goes through exporters/common/request.js (traces, span
  // stats, telemetry, remote config, profiles, data streams, LLM Observability, CI Visibility):
  // https://github.com/DataDog/dd-trace-js/tree/master/packages/dd-trace/src/exporters; the senders that build on it
  // or on node:http directly: telemetry/, remote_config/, profiling/exporters/, datastreams/writer.js, llmobs/writers/,
  // ci-visibility/ (exporters, requests), debugger/devtools_client/, flare/, agent/info.js, opentelemetry/otlp/
  'dd-trace': [
    'packages/dd-trace/src/exporters/',
    'packages/dd-trace/src/telemetry/',
    'packages/dd-trace/src/remote_config/',
    'packages/dd-trace/src/profiling/exporters/',
    'packages/dd-trace/src/datastreams/writer.js',
    'packages/dd-trace/src/llmobs/writers/',
    'packages/dd-trace/src/ci-visibility/exporters/',
    'packages/dd-trace/src/ci-visibility/requests/',
    'packages/dd-trace/src/debugger/devtools_client/',
    'packages/dd-trace/src/flare/',
    'packages/dd-trace/src/agent/info.js',
    'packages/dd-trace/src/opentelemetry/otlp/',
    // its own metrics, flushed on a timer through the agent's DogStatsD HTTP proxy (`POST /dogstatsd/v2/proxy`,
    // unmarked): https://github.com/DataDog/dd-trace-js/blob/master/packages/dd-trace/src/dogstatsd.js
    'packages/dd-trace/src/dogstatsd.js',
  ],
  // elastic-apm-node: the APM server client (intake, central config, server version):
  // https://github.com/elastic/apm-agent-nodejs/tree/main/lib/apm-client; cloud metadata (AWS, Azure, GCP) and
  // its request helper: https://github.com/elastic/apm-agent-nodejs/tree/main/lib/cloud-metadata, lib/http-request.js
  'elastic-apm-node': ['lib/apm-client/', 'lib/cloud-metadata/', 'lib/http-request.js'],
  // Sentry: the transport and Spotlight already send under suppressTracing; their files, should a context be lost:
  // https://github.com/getsentry/sentry-javascript/tree/develop/packages/node-core/src/transports,
  // packages/node-core/src/integrations/spotlight.ts (@sentry/node 8 held both itself)
  '@sentry/node-core': ['build/cjs/transports/', 'build/esm/transports/', 'build/cjs/integrations/spotlight.js', 'build/esm/integrations/spotlight.js'],
  '@sentry/node': ['build/cjs/transports/', 'build/esm/transports/', 'build/cjs/integrations/spotlight.js', 'build/esm/integrations/spotlight.js'],
  // Next.js talks for itself too, not for the app: its telemetry (https://github.com/vercel/next.js/tree/canary/packages/next/src/telemetry,
  // post-telemetry-payload.ts) and `next dev`'s check of the latest version on the package registry (getVersionInfo in
  // https://github.com/vercel/next.js/blob/canary/packages/next/src/server/dev/hot-reloader-webpack.ts, used by Turbopack's too;
  // Next 16 looks up security advisories for the installed version in lib/upgrade/).
  next: ['dist/telemetry/', 'dist/server/dev/hot-reloader-webpack.js', 'dist/lib/upgrade/'],
};

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/@]/g, '\\$&');
const INTERNAL = new RegExp(
  Object.entries(INTERNALS)
    .map(([pkg, dirs]) => `/node_modules/${escape(pkg)}/(?:${dirs.map(escape).join('|')})`)
    .join('|'),
);
// Sentry sends under suppressTracing: no stack is taken for it when origins are off.
const UNMARKED = Object.keys(INTERNALS).filter((pkg) => !pkg.startsWith('@sentry/'));
const AGENT_PACKAGE = new RegExp(`/node_modules/(?:${UNMARKED.map(escape).join('|')})/`);
const SLASHES = path.sep === '/' ? null : /\\/g;

/** Whether a script file (an absolute path) is one of an agent's own senders. Called once per file. */
export function isAgentInternal(file: string): boolean {
  return INTERNAL.test(SLASHES ? file.replace(SLASHES, '/') : file);
}

/** Bounds how often agentLoaded looks again while no agent is loaded. */
const LOOK_EVERY_MS = 1000;
let seen = false;
let lookedAt = -Infinity;

/**
 * Whether one of these agents but Sentry is loaded (in require's cache). Once seen, true for good; until then
 * looked up at most once a second: agents load first thing, before the app's calls and their own.
 */
export function agentLoaded(): boolean {
  if (seen) return true;
  const at = Date.now();
  if (at - lookedAt < LOOK_EVERY_MS) return false;
  lookedAt = at;
  try {
    for (const file of Object.keys(require.cache)) {
      if (AGENT_PACKAGE.test(SLASHES ? file.replace(SLASHES, '/') : file)) return (seen = true);
    }
  } catch {
    // no require cache (a bundle): no agent seen
  }
  return false;
}
