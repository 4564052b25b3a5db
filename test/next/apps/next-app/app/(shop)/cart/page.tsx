import { UPSTREAM } from '../../../lib/upstream';

export const dynamic = 'force-dynamic';

export default async function Cart() {
  const response = await fetch(`${UPSTREAM}/cart`, { cache: 'no-store' }); // call: cart
  const cart = await response.json();
  return <main id="cart">{`cart ${cart.count}`}</main>;
}
