import type { Store } from '../capture/Store';
import { isValidCaptureId } from '../capture/indexRow';
import { QueryError } from './QueryError';
import { buildFlow, type FlowResult } from '../flows/flowTree';

/** probe-show with `flow`: the flow of the capture `id` (default the newest), or a QueryError naming what is wrong. */
export async function queryFlow(store: Store, input: { id?: string }): Promise<FlowResult> {
  let id = input.id;
  if (id === undefined) {
    id = (await store.index())[0]?.id;
    if (!id) throw new QueryError('no captures yet');
  }
  if (!isValidCaptureId(id)) throw new QueryError(`no capture ${JSON.stringify(id).slice(0, 80)}`);
  const flow = await buildFlow(store, id);
  if (!flow) throw new QueryError(`no capture ${JSON.stringify(id)}`);
  return flow;
}
