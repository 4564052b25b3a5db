import { parseArgs } from 'node:util';
import type { CliCommand } from '../io';
import { closeContext, openContext } from '../context';
import { CollectorServer, TRACES_PATH } from '../../collector/CollectorServer';
import { createLogger } from '../../util/logger';
import { AccessTokenError, resolveAccessToken } from '../../util/accessToken';
import { isWildcardHost } from '../../util/listenAddress';
import { terminalText } from '../../util/terminalText';

/**
 * `probe collect [--port 4318] [--host 127.0.0.1] [--token T]`: receives OTLP/HTTP traces from any OTel SDK
 * or an OpenTelemetry Collector and writes captures to the configured store. Bound beyond loopback it
 * requires a token (printed once, in the exporter settings it shows). Runs until SIGINT/SIGTERM, then writes
 * what it still holds.
 */
export const collect: CliCommand = async (argv, io) => {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: '4318' },
      host: { type: 'string', default: '127.0.0.1' },
      token: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    io.err(`probe collect: --port must be a port number, got ${JSON.stringify(values.port)}`);
    return 2;
  }
  const host = values.host ?? '127.0.0.1';
  let token: string | null;
  try {
    token = resolveAccessToken(host, values.token, process.env);
  } catch (error) {
    if (!(error instanceof AccessTokenError)) throw error;
    io.err(`probe collect: ${terminalText(error.message)}`);
    return 2;
  }
  const context = openContext(io);
  if (!context) return 2;
  const logger = createLogger((line) => io.err(line));
  const server = new CollectorServer({ store: context.store, config: context.config, logger, token });
  let url: string;
  try {
    url = await server.listen(port, host);
  } catch (error) {
    io.err(`probe collect: cannot listen on ${values.host}:${port}: ${(error as Error).message}`);
    await closeContext(context);
    return 1;
  }
  io.out(`probe collect: receiving OTLP/HTTP traces (JSON, protobuf, gzip) at ${url}`);
  if (isWildcardHost(host)) io.out(`  listening on all interfaces (${host}) of this machine, port ${server.port}`);
  io.out(`  exporters: OTEL_EXPORTER_OTLP_ENDPOINT=${url} (traces go to ${url}${TRACES_PATH}); store: ${context.config.storage.driver}`);
  // Shown once, here: the header form every OTel SDK and the Collector's otlphttp exporter take.
  if (token) io.out(`  token required: OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20${token}`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.close();
  await closeContext(context);
  const { spans, captures, rejected, failed, dropped } = server.stats;
  io.out(`probe collect: stopped after ${spans} spans → ${captures} captures (${rejected} spans rejected, ${failed} units failed, ${dropped} captures lost)`);
  return 0;
};
