import type { Store } from '../capture/Store';

const EMPTY = 'The store holds no captures yet: run the app and make it do something, then ask again.';

/** What a command says of an empty store: the usual hint, or why the store stays empty (a folder the user cannot write). */
export function emptyStoreNote(store: Store): string {
  let why: string | null = null;
  try {
    why = store.whyEmpty?.() ?? null;
  } catch {
    why = null;
  }
  return why ? `The store holds no captures: ${why}` : EMPTY;
}
