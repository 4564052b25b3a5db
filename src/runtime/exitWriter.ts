// Stores captures handed over by a process that is exiting (see exit.ts). Reads JSON from stdin.
import type { Capture } from '../capture/types';
import { openStore } from '../store/openStore';
import { createLogger } from '../util/logger';
import { withDeadline } from '../util/deadline';

/** The app's exit waits for this process: a store that never answers must not hold it (see exit.ts). */
const PUT_TIMEOUT_MS = 5_000;

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const captures = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Capture[];
  const { store } = openStore({ logger: createLogger() });
  try {
    for (const capture of captures) await withDeadline(store.put(capture), PUT_TIMEOUT_MS, "the store's put");
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
