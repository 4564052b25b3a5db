// Koa with @koa/router: /api/users/:id from a router nested under a prefixed one.
const Koa = require('koa');
const Router = require('@koa/router');
const { exercise } = require('./client.cjs');

const app = new Koa();
const users = new Router();
users.get('/:id', (ctx) => {
  ctx.body = { id: ctx.params.id };
});
const api = new Router({ prefix: '/api' });
api.use('/users', users.routes());
app.use(async (ctx, next) => next());
app.use(api.routes());
const server = app.listen(0, '127.0.0.1', async () => {
  await exercise(server.address().port);
  server.close();
});
