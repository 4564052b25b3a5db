// The example app: a small shop server whose handler calls its upstreams with fetch, axios and node:http,
// runs a pool of calls and a background job, and hits a failing payment API and a dead host.
const http = require('node:http');
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

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://shop');
  if (url.pathname === '/checkout') {
    label(`cart ${url.searchParams.get('cart')}`);
    const stock = await pool(() => Promise.all(['A1', 'B2', 'C3'].map((sku) => fetch(`${UP}/inventory/${sku}`).then((r) => r.json()))));
    const rates = await getJson(`${UP}/rates`);
    const payment = await axios.post(`${UP}/payments`, { amount: 42, card_token: 'tok_visa', password: 'not-in-the-record' }, { validateStatus: () => true });
    await fetch('http://127.0.0.1:9/unreachable').catch(() => null);
    job('send-receipt', () => fetch(`${UP}/mail`, { method: 'POST', body: JSON.stringify({ to: 'ada@example.com' }), headers: { 'content-type': 'application/json', authorization: 'Bearer sk_live_secret' } }));
    res.writeHead(payment.status === 402 ? 402 : 200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ stock: stock.length, rates, payment: payment.data.error ?? 'ok' }));
  }
  if (url.pathname === '/rates') {
    const rates = await fetch(`${UP}/old-rates`).then((r) => r.json());
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify(rates));
  }
  res.writeHead(404).end();
});

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(`shop listening on http://127.0.0.1:${server.address().port}`));
