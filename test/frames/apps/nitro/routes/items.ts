// A route's calls through Nitro's `$fetch` (ofetch, handed to app code as a global) and the global fetch. Each
// call's line also makes an Error: the test reads the line Node prints for it (the oracle) and expects the origin there.
const oracle = (name: string, error: Error): undefined => void console.log(`ORACLE ${name} ${error.stack!.split('\n')[1]!.trim()}`);

export default defineEventHandler(async () => {
  const api = process.env.API_URL;
  const items = await $fetch(`${api}/users/nitro-fetch`, oracle('nitro-fetch', new Error()));
  const more = await (await fetch(`${api}/users/nitro-global`, oracle('nitro-global', new Error()))).json();
  return { items, more };
});
