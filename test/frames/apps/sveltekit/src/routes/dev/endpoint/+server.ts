// An endpoint in TypeScript under `vite dev` (types above the call move every transformed line), its call made in
// a helper of its own: the origin is the helper's line. `?oracle=dev-endpoint` throws the Error made on the call's
// line, which SvelteKit prints with its stack fixed by Vite (see page/).
import { json } from '@sveltejs/kit';
import { env } from '$env/dynamic/private';

interface User {
  id: number;
}
type Made = Record<string, Error>;

const made: Made = {};

async function users(): Promise<User[]> {
  const res = await fetch(`${env.API_URL}/users/dev-endpoint`, void (made['dev-endpoint'] = new Error('oracle dev-endpoint')));
  return (await res.json()) as User[];
}

export async function GET({ url }: { url: URL }): Promise<Response> {
  const list = await users();
  const oracle = url.searchParams.get('oracle');
  if (oracle) throw made[oracle];
  return json({ count: list.length });
}
