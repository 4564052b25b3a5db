// A loader under `react-router dev`: Vite's module runner evaluates it transformed. Its call's line makes an Error;
// `?oracle=rr-dev` throws it, and the dev server prints it with its stack fixed by Vite (ssrFixStacktrace).
import { useLoaderData } from 'react-router';

export async function loader({ request }) {
  const made = {};
  const items = await (await fetch(`${process.env.API_URL}/users/rr-dev`, void (made['rr-dev'] = new Error('oracle rr-dev')))).json();
  const oracle = new URL(request.url).searchParams.get('oracle');
  if (oracle) throw made[oracle];
  return { count: Object.keys(items).length };
}

export default function Dev() {
  const { count } = useLoaderData();
  return <p>{count} keys</p>;
}
