// Stores captures handed over by a process that is exiting (see exit.ts). Reads JSON from stdin.
import type { Capture } from '../capture/types';
import { loadConfig } from '../config/load';
import { createStore, extendStore } from '../store/registry';
import { createLogger } from '../util/logger';

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const captures = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Capture[];
  const config = loadConfig();
  config.register?.({ extendStore });
  const store = createStore({ root: config.root, config, logger: createLogger() });
  try {
    for (const capture of captures) await store.put(capture);
  } finally {
    await store.close?.();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${error?.message ?? error}\n`);
    process.exit(1);
  },
);
