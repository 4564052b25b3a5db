// A composable a page awaits: its call's origin is this line, not the page's.
export async function useUpstream(name: string): Promise<unknown> {
  const api = import.meta.server ? process.env.API_URL : '';
  return await $fetch(`${api}/users/${name}`, oracle(name, new Error()));
}
