import { TestApp, type RunResult } from '../helpers/app';
import { startHttpsUpstream, startUpstream, type Upstream } from '../helpers/upstream';
import type { Capture, HttpRow } from '../../src/capture/types';

export interface Upstreams {
  plain: Upstream;
  tls: Upstream & { certFile: string };
  close(): Promise<void>;
}

export async function startUpstreams(): Promise<Upstreams> {
  const plain = await startUpstream();
  const tls = await startHttpsUpstream();
  return { plain, tls, close: async () => void (await Promise.all([plain.close(), tls.close()])) };
}

export interface LensRun {
  result: RunResult;
  capture: Capture | undefined;
  rows: HttpRow[];
}

/**
 * Runs `script` (an app that makes calls to UPSTREAM / UPSTREAM_TLS, then exits) in a fresh TestApp and
 * returns its command capture. With `preload: 'none'` there is no capture: the baseline for transparency.
 */
export async function runLensApp(
  up: Upstreams,
  files: Record<string, string>,
  script: string,
  options: { preload?: 'require' | 'import' | 'none'; env?: Record<string, string> } = {},
): Promise<LensRun> {
  const app = new TestApp(files);
  const result = await app.run(script, {
    preload: options.preload ?? 'require',
    env: { UPSTREAM: up.plain.url, UPSTREAM_TLS: up.tls.url, NODE_EXTRA_CA_CERTS: up.tls.certFile, ...options.env },
  });
  const captures = app.captures();
  const capture = captures.find((c) => c.type === 'command');
  return { result, capture, rows: (capture?.sections.http as HttpRow[] | undefined) ?? [] };
}

/** The rows whose URL path (after host) is `path`, in call order. */
export function rowsFor(rows: HttpRow[], path: string): HttpRow[] {
  return rows.filter((row) => new URL(row.url).pathname + new URL(row.url).search === path);
}

export const ROW_KEYS = [
  'method',
  'url',
  'host',
  'endpoint',
  'request_headers',
  'request_bytes',
  'request_payload',
  'request_body',
  'status',
  'response_headers',
  'response_bytes',
  'response_capture',
  'response_body',
  'duration',
  'timing',
  'failed',
  'exception',
  'pool',
  'fake',
  'time',
  'origin',
];
