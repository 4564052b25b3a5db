// A loader's calls: global fetch and one through a helper the route hands the call to. Each call's line also
// makes an Error: the test reads the line Node prints for it (the oracle) and expects the origin there.
import { useLoaderData } from 'react-router';

const oracle = (name, error) => void console.log(`ORACLE ${name} ${error.stack.split('\n')[1].trim()}`);

export async function loader() {
  const api = process.env.API_URL;
  const items = await (await fetch(`${api}/users/rr-loader`, oracle('rr-loader', new Error()))).json();
  return { count: Object.keys(items).length };
}

export default function Items() {
  const { count } = useLoaderData();
  return <p>{count} keys</p>;
}
