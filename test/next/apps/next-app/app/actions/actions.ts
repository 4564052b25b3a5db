'use server';

import { UPSTREAM } from '../../lib/upstream';

export async function save(form: FormData) {
  const name = String(form.get('name') ?? '');
  await fetch(`${UPSTREAM}/saved/${name}`, { method: 'POST', cache: 'no-store' }); // call: action
}
