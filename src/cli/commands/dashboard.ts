import { parseArgs } from 'node:util';
import type { CliCommand } from '../io';
import { closeContext, openContext } from '../context';
import { openBrowser } from '../openBrowser';
import { portOption, serveDashboard } from '../serveDashboard';
import { AccessTokenError, resolveAccessToken } from '../../util/accessToken';
import { terminalText } from '../../util/terminalText';

export const dashboard: CliCommand = async (argv, io) => {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string' },
      token: { type: 'string' },
      open: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const port = portOption(values.port);
  if (Number.isNaN(port)) {
    io.err(`probe dashboard: --port must be a number from 0 to 65535, got ${JSON.stringify(values.port)}`);
    return 2;
  }
  let token: string | null;
  try {
    token = resolveAccessToken(values.host, values.token, process.env);
  } catch (error) {
    if (!(error instanceof AccessTokenError)) throw error;
    io.err(`probe dashboard: ${terminalText(error.message)}`);
    return 2;
  }
  const context = openContext(io);
  if (!context) return 2;
  // A store this user cannot read (another user's capture folder, Redis down) is said now, in one line, not
  // as an empty dashboard: the read throws the store's own error, which the CLI prints (storeFailure).
  try {
    await (context.store.ids ? context.store.ids() : context.store.index());
  } catch (error) {
    await closeContext(context);
    throw error;
  }
  const running = await serveDashboard(context, io, 'dashboard', { host: values.host, port, token });
  if (!running) {
    await closeContext(context);
    return 1;
  }
  io.out(`Probe dashboard: ${running.url}`);
  if (running.allInterfaces) io.out(`  listening on all interfaces (${running.host}) of this machine, port ${running.port}`);
  if (running.url.includes('?token=')) io.out('  open the URL above once: the token in it is required, and the browser keeps it in a cookie');
  io.out(`  store: ${context.config.storage.driver} (${context.config.root}) — Ctrl+C to stop`);
  if (values.open && !(await openBrowser(running.url))) io.out('  no browser to open here: open the URL above');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await running.close();
  await closeContext(context);
  return 0;
};
