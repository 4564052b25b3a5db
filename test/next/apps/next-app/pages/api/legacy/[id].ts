import type { NextApiRequest, NextApiResponse } from 'next';
import { UPSTREAM } from '../../../lib/upstream';

export default async function handler(request: NextApiRequest, response: NextApiResponse) {
  const upstream = await fetch(`${UPSTREAM}/legacy/${request.query.id}`); // call: legacy
  response.status(200).json({ route: 'legacy', legacy: await upstream.json() });
}
