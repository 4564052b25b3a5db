// A stand-in for the third-party APIs the example shop calls: payments, inventory, mail. Runs without Probe.
import http from 'node:http';

export function startUpstream() {
  const server = http.createServer((req, res) => {
    const json = (status, value) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    const url = new URL(req.url, 'http://x');
    if (url.pathname.startsWith('/inventory/')) return setTimeout(() => json(200, { sku: url.pathname.split('/')[2], stock: 7 }), 15);
    if (url.pathname === '/payments') return setTimeout(() => json(402, { error: 'card_declined', token: 'tok_live_123' }), 40);
    if (url.pathname === '/rates') return json(200, { EUR: 0.92, GBP: 0.79 });
    if (url.pathname === '/mail') return setTimeout(() => json(202, { queued: true }), 25);
    if (url.pathname === '/old-rates') {
      res.writeHead(301, { location: '/rates' });
      return res.end();
    }
    json(404, { error: 'not found' });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
