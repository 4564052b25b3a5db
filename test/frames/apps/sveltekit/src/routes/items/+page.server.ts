// A load function's calls through the `fetch` SvelteKit hands it, and through the global one. Each call's line
// also makes an Error: the test reads the line Node prints for it (the oracle) and expects the origin there.
import { env } from '$env/dynamic/private';

interface Item {
  id: number;
}

const oracle = (name: string, error: Error): undefined => void console.log(`ORACLE ${name} ${error.stack!.split('\n')[1]!.trim()}`);

export async function load({ fetch }: { fetch: typeof globalThis.fetch }): Promise<{ items: Item[]; count: number }> {
  const api = env.API_URL;
  const items = (await (await fetch(`${api}/users/kit-load`, oracle('kit-load', new Error()))).json()) as Item[];
  const count = (await (await globalThis.fetch(`${api}/users/kit-global`, oracle('kit-global', new Error()))).json()) as unknown[];
  return { items: Array.isArray(items) ? items : [], count: Array.isArray(count) ? count.length : 0 };
}
