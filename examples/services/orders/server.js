// orders: GET /orders/:cart checks the stock of each item with inventory, one call after the other.
const http = require('node:http');

const INVENTORY = process.env.INVENTORY_URL || 'http://127.0.0.1:3002';
const agent = new http.Agent({ keepAlive: true });

function stockOf(item) {
  return new Promise((resolve, reject) => {
    http
      .get(`${INVENTORY}/stock/${item}`, { agent }, (answer) => {
        let body = '';
        answer.on('data', (chunk) => (body += chunk));
        answer.on('end', () => resolve(JSON.parse(body)));
      })
      .on('error', reject);
  });
}

http
  .createServer(async (req, res) => {
    const items = ['apple', 'pear'];
    const stock = [];
    for (const item of items) stock.push(await stockOf(item));
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ cart: req.url.split('/')[2], items: stock }));
  })
  .listen(Number(process.env.PORT || 3001), () => console.log(`orders listening ${process.env.PORT || 3001}`));
