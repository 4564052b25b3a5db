// A server route's calls through Nitro's `$fetch` and the global fetch. Each call's line also makes an Error:
// the test reads the line the setup's own stack mapping prints for it (the oracle) and expects the origin there.
interface Item {
  id: number;
}

const oracle = (name: string, error: Error): undefined => void console.log(`ORACLE ${name} ${error.stack!.split('\n')[1]!.trim()}`);

export default defineEventHandler(async () => {
  const api = process.env.API_URL;
  const items = await $fetch<Item[]>(`${api}/users/nuxt-fetch`, oracle('nuxt-fetch', new Error()));
  const count = (await (await fetch(`${api}/users/nuxt-global`, oracle('nuxt-global', new Error()))).json()) as unknown[];
  return { items: items.length, count: count.length };
});
