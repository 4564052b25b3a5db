// inventory: GET /stock/:item asks a slow supplier how many are left.
const http = require('node:http');

const SUPPLIER = process.env.SUPPLIER_URL || 'http://127.0.0.1:3003';

http
  .createServer(async (req, res) => {
    const item = req.url.split('/')[2];
    const { left } = await (await fetch(`${SUPPLIER}/left/${item}`)).json();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ item, left }));
  })
  .listen(Number(process.env.PORT || 3002), () => console.log(`inventory listening ${process.env.PORT || 3002}`));
