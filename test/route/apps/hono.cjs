// Hono on @hono/node-server: /api/users/:id from a sub-app mounted with app.route().
const { Hono } = require('hono');
const { serve } = require('@hono/node-server');
const { exercise } = require('./client.cjs');

const app = new Hono();
const users = new Hono();
users.get('/:id', (c) => c.json({ id: c.req.param('id') }));
app.route('/api/users', users);
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, async (info) => {
  await exercise(info.port);
  server.close();
});
