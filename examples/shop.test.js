// The example's test file: run with `node --test` under the preload, each test case is a capture of type `test`.
const { test } = require('node:test');
const assert = require('node:assert');

const UP = process.env.UPSTREAM_URL;

test('rates > are quoted in EUR and GBP', async () => {
  const rates = await fetch(`${UP}/rates`).then((r) => r.json());
  assert.deepStrictEqual(Object.keys(rates).sort(), ['EUR', 'GBP']);
});
