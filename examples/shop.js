// The example app: a small Express shop whose handlers call their upstreams with fetch, axios and node:http,
// run a pool of calls and a background job, and hit a failing payment API and a dead host.
// Express is in a checkout's node_modules already (the MCP SDK, one of Probe's dependencies, brings it).
const http = require('node:http');
const express = require('express');
const axios = require('axios');
const { pool, job, label } = require('probe');

const UP = process.env.UPSTREAM_URL;

function getJson(url) {
  return new Promise((resolve, reject) => {
    http.get(url, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c) => (text += c)).on('end', () => resolve(JSON.parse(text)));
    }).on('error', reject);
  });
}

// Once at boot, outside any request: Probe records this call on the shop's command capture.
getJson(`${UP}/rates`).then((rates) => console.log(`rates at boot: ${Object.keys(rates).join(', ')}`), () => null);

const app = express();

app.get('/carts/:cart/checkout', async (req, res) => {
  label(`cart ${req.params.cart}`);
  const stock = await pool(() => Promise.all(['A1', 'B2', 'C3'].map((sku) => fetch(`${UP}/inventory/${sku}`).then((r) => r.json()))));
  const rates = await getJson(`${UP}/rates`);
  const payment = await axios.post(`${UP}/payments`, { amount: 42, card_token: 'tok_visa', password: 'not-in-the-record' }, { validateStatus: () => true });
  // Nothing listens there: the row shows the failure and its cause (ECONNREFUSED).
  await fetch(`${process.env.DEAD_URL ?? 'http://127.0.0.1:2'}/unreachable`).catch(() => null);
  job('send-receipt', () => fetch(`${UP}/mail`, { method: 'POST', body: JSON.stringify({ to: 'ada@example.com' }), headers: { 'content-type': 'application/json', authorization: 'Bearer sk_live_secret' } }));
  res.status(payment.status === 402 ? 402 : 200).json({ stock: stock.length, rates, payment: payment.data.error ?? 'ok' });
});

app.get('/rates', async (req, res) => {
  const rates = await fetch(`${UP}/old-rates`).then((r) => r.json());
  res.json(rates);
});

const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(`shop listening on http://127.0.0.1:${server.address().port}`));
