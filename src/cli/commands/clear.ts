import type { CliCommand } from '../io';
import { closeContext, openContext } from '../context';

export const clear: CliCommand = async (_argv, io) => {
  const context = openContext(io);
  if (!context) return 2;
  try {
    await context.store.clear();
    io.out('probe: all captures removed');
    return 0;
  } finally {
    await closeContext(context);
  }
};
