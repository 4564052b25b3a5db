import { editorTemplate } from '../dashboard/editorLinks';
import type { CliIo } from './io';
import type { CliContext } from './context';
import { createLogger } from '../util/logger';
import { startDashboard, type RunningDashboard } from '../dashboard/startDashboard';
import { AccessTokenError, resolveAccessToken } from '../util/accessToken';
import { terminalText } from '../util/terminalText';

/** Tried first so the address stays the same between runs; a free port is used when it is taken. */
export const DEFAULT_DASHBOARD_PORT = 4400;

export interface ServeOptions {
  host: string;
  /** Undefined: the default port, or a free one when it is taken. */
  port?: number;
  token?: string | null;
}

/**
 * The dashboard over the context's store, for `probe dashboard` and `probe run`. Null when it cannot listen
 * (said on stderr): a port the user asked for that is taken, or a host that cannot be bound.
 */
export async function serveDashboard(context: CliContext, io: CliIo, command: string, options: ServeOptions): Promise<RunningDashboard | null> {
  const { config, store } = context;
  let token: string | null;
  try {
    // Beyond loopback a token is required: --token, else PROBE_TOKEN, else a random one printed in the URL.
    token = resolveAccessToken(options.host, options.token ?? undefined, process.env);
  } catch (error) {
    if (!(error instanceof AccessTokenError)) throw error;
    io.err(`probe ${command}: ${terminalText(error.message)}`);
    return null;
  }
  const common = {
    store,
    host: options.host,
    token,
    info: { service: config.service, driver: config.storage.driver, root: config.root, editor: editorTemplate(process.env.PROBE_EDITOR) },
    logger: createLogger((line) => io.err(line)),
    findings: config.findings,
    root: config.root,
    snapshots: config.snapshots,
  };
  try {
    return await startDashboard({ ...common, port: options.port ?? DEFAULT_DASHBOARD_PORT });
  } catch (error) {
    if (options.port === undefined && (error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      try {
        return await startDashboard({ ...common, port: 0 });
      } catch (retry) {
        error = retry;
      }
    }
    io.err(`probe ${command}: cannot listen on ${options.host}:${options.port ?? DEFAULT_DASHBOARD_PORT}: ${(error as Error).message}`);
    return null;
  }
}

/** `--port` as given: a number from 0 to 65535, or undefined when absent; NaN when it is not one. */
export function portOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  return Number.isInteger(port) && port >= 0 && port <= 65535 && value.trim() !== '' ? port : Number.NaN;
}
