// gateway: GET /checkout/:cart asks orders for the cart's order, then answers.
const http = require('node:http');

const ORDERS = process.env.ORDERS_URL || 'http://127.0.0.1:3001';

http
  .createServer(async (req, res) => {
    const cart = req.url.split('/')[2] || '1';
    const order = await (await fetch(`${ORDERS}/orders/${cart}`)).json();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ cart, order }));
  })
  .listen(Number(process.env.PORT || 3000), () => console.log(`gateway listening ${process.env.PORT || 3000}`));
