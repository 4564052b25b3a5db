import path from 'node:path';
import type { Capture } from '../../src/capture/types';
import { FileStore } from '../../src/store/FileStore';
import type { TestApp } from '../helpers/app';

/** Writes captures into the app's default file store, as the app would. */
export async function seedFileStore(app: TestApp, captures: Capture[]): Promise<void> {
  const store = new FileStore({ path: path.join(app.dir, '.probe', 'captures'), limit: 200 });
  for (const capture of captures) await store.put(capture);
  await store.close?.();
}
