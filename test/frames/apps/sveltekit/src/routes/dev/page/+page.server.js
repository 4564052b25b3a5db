// A load function in JavaScript under `vite dev`: Vite's module runner evaluates it transformed, so its lines are
// not the file's. Each call's line makes an Error; `?oracle=<name>` throws that one, and SvelteKit's dev server
// prints it with its stack fixed by Vite (ssrFixStacktrace): the test's oracle.
import { env } from '$env/dynamic/private';

export async function load({ fetch, url }) {
  const made = {};
  const items = await (await fetch(`${env.API_URL}/users/dev-load`, void (made['dev-load'] = new Error('oracle dev-load')))).json();
  const count = await (await globalThis.fetch(`${env.API_URL}/users/dev-global`, void (made['dev-global'] = new Error('oracle dev-global')))).json();
  const oracle = url.searchParams.get('oracle');
  if (oracle) throw made[oracle];
  return { items: items.length, count: count.length };
}
