// The paths the params-route apps are asked, and what their handlers see of each request, printed so a run with
// Probe can be compared with one without.
const http = require('node:http');

exports.PATHS = ['/api/users/42', '/health', '/pairs/7/8', '/pairs/7/7', '/nope'];

const changes = [];

/** A request's own property names (symbols by description) and its listener counts. */
function view(req) {
  const keys = Reflect.ownKeys(req).map((key) => (typeof key === 'symbol' ? `symbol:${key.description}` : key));
  const listeners = req.eventNames().map((name) => `${String(name)}:${req.listenerCount(name)}`);
  return { keys, listeners: listeners.sort() };
}

/**
 * Called by a handler: what the request holds now, then once the answer is out (a turn after it finished, when
 * any reader of it ran), kept as what changed in between.
 */
exports.watch = function watch(req, res) {
  const before = view(req);
  res.on('finish', () =>
    setImmediate(() => {
      const after = view(req);
      changes.push({
        path: req.url,
        added: after.keys.filter((key) => !before.keys.includes(key)).sort(),
        removed: before.keys.filter((key) => !after.keys.includes(key)).sort(),
        listeners: [before.listeners, after.listeners],
      });
    }),
  );
};

function get(port, path) {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        const json = (res.headers['content-type'] ?? '').includes('json');
        res.on('end', () => resolve({ path, status: res.statusCode, body: json ? JSON.parse(body) : body }));
      })
      .on('error', reject);
  });
}

/** Asks each path in turn, then prints the answers and the requests' changes, one JSON line each. */
exports.exercise = async function exercise(port) {
  const answers = [];
  for (const path of exports.PATHS) answers.push(await get(port, path));
  await new Promise((resolve) => setTimeout(resolve, 20));
  process.stdout.write(`${JSON.stringify(answers)}\n${JSON.stringify(changes)}\n`);
};
