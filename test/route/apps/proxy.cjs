// A dev server of the kind no list names: the front process passes each request on, same method and path, to
// a server of the same app in a child process (over a unix socket, or TCP loopback: PROXY_HOP=tcp), and makes
// one call of its own to that server's /health for /with-health. The backend calls the upstream for /api/*.
// Prints `Listening on <url>` when both are up.
const http = require('node:http');
const { fork } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');

if (process.argv[2] === 'backend') {
  const server = http.createServer(async (req, res) => {
    if (req.url.startsWith('/api/')) {
      const upstream = await fetch(`${process.env.API_URL}/users${req.url.slice('/api'.length)}`);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ path: req.url, upstream: upstream.status }));
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ path: req.url }));
  });
  const at = process.env.PROXY_HOP === 'tcp' ? { port: 0, host: '127.0.0.1' } : { path: path.join(os.tmpdir(), `proxy-${process.pid}.sock`) };
  server.listen(at, () => process.send(server.address()));
  process.on('disconnect', () => process.exit(0));
} else {
  const backend = fork(__filename, ['backend'], { stdio: 'inherit' });
  backend.once('message', (address) => {
    const target = typeof address === 'string' ? { socketPath: address } : { host: '127.0.0.1', port: address.port };
    const pass = (req, res, pathname) =>
      new Promise((resolve) => {
        const hop = http.request({ ...target, method: req.method, path: pathname, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode, answer.headers);
          answer.pipe(res);
          answer.on('end', resolve);
        });
        req.pipe(hop);
      });
    const server = http.createServer(async (req, res) => {
      if (req.url === '/with-health') {
        // Not a pass-through: a call of the front's own (another path) to the backend, kept.
        await new Promise((resolve) => http.get({ ...target, path: '/health' }, (r) => r.resume().on('end', resolve)));
        res.end('ok');
        return;
      }
      await pass(req, res, req.url);
    });
    server.listen(0, '127.0.0.1', () => console.log(`Listening on http://127.0.0.1:${server.address().port}`));
  });
  process.on('SIGTERM', () => {
    backend.kill();
    process.exit(0);
  });
}
