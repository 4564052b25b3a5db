// A slow third-party supplier (not one of the services: nothing records it). Answers after 300 ms.
const http = require('node:http');

http
  .createServer((req, res) => {
    setTimeout(() => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ item: req.url.split('/')[2], left: 7 }));
    }, 300);
  })
  .listen(Number(process.env.PORT || 3003), () => console.log(`supplier listening ${process.env.PORT || 3003}`));
