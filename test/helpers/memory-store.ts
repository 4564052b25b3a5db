import type { Store } from '../../src/capture/Store';
import type { Capture, IndexRow } from '../../src/capture/types';
import { indexRowOf } from '../../src/capture/indexRow';

/**
 * A Store held in memory, for tests of pure functions over the Store contract (the query engine) that
 * must not depend on a driver. Newest first by `started_at`, like the real drivers.
 */
export class MemoryStore implements Store {
  private readonly captures = new Map<string, Capture>();

  constructor(captures: Capture[] = []) {
    for (const capture of captures) this.captures.set(capture.id, structuredClone(capture));
  }

  async put(capture: Capture): Promise<void> {
    this.captures.set(capture.id, structuredClone(capture));
  }

  async find(id: string): Promise<Capture | null> {
    const capture = this.captures.get(id);
    return capture ? structuredClone(capture) : null;
  }

  async index(): Promise<IndexRow[]> {
    return [...this.captures.values()].sort((a, b) => b.started_at - a.started_at || (a.id < b.id ? 1 : -1)).map(indexRowOf);
  }

  async clear(): Promise<void> {
    this.captures.clear();
  }
}
