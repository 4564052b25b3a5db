/**
 * The thread user parts run on (UserPartsRunner.ts): loads the app's config here to have its masks, then answers one
 * request at a time, synchronously, through the shared state and its port. It never returns to its event loop: it
 * waits in Atomics.wait for the next request, and the calling thread stops it when one runs past the deadline.
 */
import { receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { State, runUserPartsHere, type UserPartAnswer, type UserPartRequest, type UserPartsSource } from './UserPartsRunner';
import { localMask } from './guardUserParts';

const { shared, port, source } = workerData as { shared: SharedArrayBuffer; port: MessagePort; source: UserPartsSource | null };
const state = new Int32Array(shared);
runUserPartsHere();

if (source) {
  try {
    // Loading it registers each user mask by its setting (guardUserParts.ts) as it is called here.
    const { loadConfig } = require('./load') as typeof import('./load');
    loadConfig({ cwd: source.cwd, env: source.env, overrides: source.overrides, trial: false });
  } catch {
    // No masks then: each mask call answers that it has none, and the caller masks the value whole.
  }
}

const patterns = new Map<string, RegExp>();

function answer(request: UserPartRequest): UserPartAnswer {
  try {
    if (request.kind === 'mask') {
      const mask = localMask(request.setting);
      if (!mask) return { ok: false, reason: 'could not be loaded on its thread' };
      return { ok: true, value: String(mask.mask(request.value)) };
    }
    const key = `${request.flags}/${request.source}`;
    let pattern = patterns.get(key);
    if (!pattern) patterns.set(key, (pattern = new RegExp(request.source, request.flags)));
    pattern.lastIndex = 0;
    return { ok: true, value: pattern.test(request.name) };
  } catch (error) {
    // The error itself stays here: it may quote the secret.
    return { ok: false, reason: `threw${error instanceof Error ? ` a ${error.name}` : ''}` };
  }
}

Atomics.store(state, 0, State.idle);
Atomics.notify(state, 0);
for (;;) {
  // Asleep until asked (also while the last answer waits to be read: no spinning then).
  const now = Atomics.load(state, 0);
  if (now !== State.asked) {
    Atomics.wait(state, 0, now);
    continue;
  }
  const request = receiveMessageOnPort(port)?.message as UserPartRequest | undefined;
  if (!request) continue;
  port.postMessage(answer(request));
  Atomics.store(state, 0, State.answered);
  Atomics.notify(state, 0);
}
