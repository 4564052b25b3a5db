import { UPSTREAM } from '../../lib/upstream';

export const dynamic = 'force-dynamic';

export async function GET() {
  const upstream = await fetch(`${UPSTREAM}/cached`, { next: { revalidate: 3600 } }); // call: cached
  return Response.json(await upstream.json());
}
