import { UPSTREAM } from '../../../../lib/upstream';

export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const upstream = await fetch(`${UPSTREAM}/items/${id}`, { cache: 'no-store' }); // call: item
  const item = await upstream.json();
  return Response.json({ route: 'item', item });
}
