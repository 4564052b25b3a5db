// Started in code (no preload): the framework's methods Probe wraps are listed in the ledger with a reason while
// it runs, and are the framework's own again after shutdown(). Argument: which framework slots to look at.
const path = require('node:path');
const { start } = require('probe');
const { patches } = require(path.join(path.dirname(require.resolve('probe')), 'util', 'patches.js'));

const SLOTS = {
  express4: () => ({ use: require('express/lib/router/index.js').use, handle: require('express/lib/router/layer.js').prototype.handle_request }),
  router22: () => ({ use: require('router').prototype.use, handle: require('router/lib/layer.js').prototype.handleRequest }),
  koa: () => ({ createContext: require('koa').prototype.createContext }),
  // Not exported as a subpath: the file beside the CommonJS entry.
  hapi: () => ({ generate: require('@hapi/hapi/lib/request.js').generate }),
  hono: () => ({ Context: require(path.join(path.dirname(require.resolve('hono')), 'context.js')).Context }),
};

const probe = start();
const read = SLOTS[process.argv[2]];
const during = read();
const listed = patches().filter((patch) => /^(express|router|koa|hono|@hapi)/.test(patch.target));
probe.shutdown().then(() => {
  const after = read();
  const names = Object.keys(during);
  process.stdout.write(`${JSON.stringify({
    wrapped: names.filter((name) => String(during[name]).includes('noteRoute') || String(during[name]).includes('templates') || String(during[name]).includes('MOUNT_PATH')),
    restored: names.filter((name) => after[name] !== during[name]),
    listed: listed.map((patch) => patch.target),
    whys: listed.map((patch) => patch.why),
    left: patches().length,
  })}\n`);
});
