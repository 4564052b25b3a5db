import { context } from '@opentelemetry/api';
import { isTracingSuppressed } from '@opentelemetry/core';

type HeaderOf = (name: string) => unknown;

/**
 * Telemetry's own traffic is not the app's: Probe records nothing that a tracing SDK or APM agent sends for
 * itself. Two signs, either enough:
 * - the OpenTelemetry context says tracing is suppressed: OTel's exporters and resource detectors run that way
 *   (`suppressTracing` in @opentelemetry/core), and so do Sentry's transports;
 * - the request carries an agent's own mark, for agents that keep their requests out of their own traces by
 *   other means (dd-trace's noop store, New Relic's and Elastic's transactions): the user agent of the OTLP
 *   exporters, New Relic and Elastic; dd-trace's `datadog-meta-tracer-version`; Sentry's `sentry_client` /
 *   `x-sentry-auth`; New Relic's collector method path.
 * A third, for calls with neither (New Relic's metadata lookups): the call's stack passes through an agent's own
 * code, read off the app's path (origin/agentInternals.ts, CallRecord.settle).
 */
export function isTelemetryTraffic(url: string, header: HeaderOf): boolean {
  return isTracingSuppressed(context.active()) || isAgentRequest(url, header);
}

const AGENT_USER_AGENTS = /^(?:OTel-OTLP-Exporter-JavaScript|OTel-OTLP-Exporter|NewRelic-NodeAgent|elastic-apm-node|apm-agent-nodejs|elasticapm-node)\b/i;
const AGENT_PATHS = /\/agent_listener\/invoke_raw_method\b|[?&]sentry_client=sentry\./;

export function isAgentRequest(url: string, header: HeaderOf): boolean {
  const agent = header('user-agent');
  if (typeof agent === 'string' && AGENT_USER_AGENTS.test(agent)) return true;
  if (header('datadog-meta-tracer-version') !== undefined || header('x-sentry-auth') !== undefined) return true;
  return AGENT_PATHS.test(url);
}

/** A header reader over a plain object of request headers (any name case). */
export function headerOf(headers: Record<string, unknown> | undefined | null): HeaderOf {
  return (name) => {
    if (!headers) return undefined;
    if (name in headers) return headers[name];
    for (const key of Object.keys(headers)) if (key.toLowerCase() === name) return headers[key];
    return undefined;
  };
}

const noHeaders: HeaderOf = () => undefined;

/** A header reader over fetch's `init.headers` (Headers, pairs or an object), else the Request's own headers. */
export function fetchHeaderOf(input: unknown, init: { headers?: unknown } | undefined): HeaderOf {
  const headers = init?.headers ?? (typeof input === 'object' && input instanceof Request ? input.headers : undefined);
  if (!headers) return noHeaders;
  if (typeof (headers as Headers).get === 'function') return (name) => (headers as Headers).get(name) ?? undefined;
  if (Array.isArray(headers)) return (name) => (headers as unknown[][]).find((pair) => String(pair[0]).toLowerCase() === name)?.[1];
  return headerOf(headers as Record<string, unknown>);
}
