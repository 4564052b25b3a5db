// The upstream's answer in bench/upstream.mjs: a small JSON body, or a page of records of a given size.
const SMALL = { ok: true, items: [1, 2, 3], user: { name: 'ada', token: 'abc' } };

/** `{ok, items: [record…], user}` of about `bytes` bytes: whole records until the next would pass it. */
export function answerOf(bytes) {
  if (!bytes || bytes <= 100) return JSON.stringify(SMALL);
  const items = [];
  let size = 60;
  for (let id = 1; ; id++) {
    const record = {
      id,
      number: `ORD-${String(100000 + id)}`,
      status: ['paid', 'shipped', 'refunded'][id % 3],
      created_at: new Date(Date.UTC(2026, 10, 25, 16, 0, id % 60)).toISOString(),
      customer: { name: `Customer ${id}`, email: `customer${id}@example.test`, country: 'FR' },
      lines: [
        { sku: `SKU-${id * 7}`, quantity: 1 + (id % 4), price: 19.99 },
        { sku: `SKU-${id * 11}`, quantity: 1, price: 5.5 },
      ],
      total: 25.49 + id,
      currency: 'EUR',
      note: 'Leave at the door, ring twice: "back entrance"',
    };
    const length = JSON.stringify(record).length + 1;
    if (size + length > bytes && items.length) break;
    items.push(record);
    size += length;
  }
  return JSON.stringify({ ok: true, items, user: { name: 'ada' } });
}
