import { parseArgs } from 'node:util';
import type { CliCommand } from '../io';
import { closeContext, openContext } from '../context';
import { createLogger } from '../../util/logger';
import { startDashboard, type RunningDashboard } from '../../dashboard/startDashboard';
import { resolveAccessToken } from '../../util/accessToken';

/** Tried first so the address stays the same between runs; a free port is used when it is taken. */
const DEFAULT_DASHBOARD_PORT = 4400;

export const dashboard: CliCommand = async (argv, io) => {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string' },
      token: { type: 'string' },
    },
    strict: true,
  });
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    io.err(`probe dashboard: --port must be a number from 0 to 65535, got ${JSON.stringify(values.port)}`);
    return 2;
  }
  const context = openContext(io);
  if (!context) return 2;
  const { config, store } = context;
  const logger = createLogger((line) => io.err(line));
  const common = {
    store,
    host: values.host,
    // Beyond loopback a token is required: --token, else PROBE_TOKEN, else a random one printed in the URL.
    token: resolveAccessToken(values.host, values.token, process.env),
    info: { service: config.service, driver: config.storage.driver, root: config.root },
    logger,
  };
  let running: RunningDashboard;
  try {
    running = await startDashboard({ ...common, port: port ?? DEFAULT_DASHBOARD_PORT });
  } catch (error) {
    if (port !== undefined || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') {
      await closeContext(context);
      io.err(`probe dashboard: cannot listen on ${values.host}:${port ?? DEFAULT_DASHBOARD_PORT}: ${(error as Error).message}`);
      return 1;
    }
    running = await startDashboard({ ...common, port: 0 });
  }
  io.out(`Probe dashboard: ${running.url}`);
  if (running.allInterfaces) io.out(`  listening on all interfaces (${running.host}) of this machine, port ${running.port}`);
  if (running.url.includes('?token=')) io.out('  open the URL above once: the token in it is required, and the browser keeps it in a cookie');
  io.out(`  store: ${config.storage.driver} (${config.root}) — Ctrl+C to stop`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await running.close();
  await closeContext(context);
  return 0;
};
