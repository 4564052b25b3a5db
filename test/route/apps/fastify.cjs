// Fastify 4 or 5: /api/users/:id from two nested plugins with prefixes.
const Fastify = require('fastify');
const { exercise } = require('./client.cjs');

const fastify = Fastify();
fastify.register(async (api) => {
  api.register(async (users) => {
    users.get('/:id', async (request) => ({ id: request.params.id }));
  }, { prefix: '/users' });
}, { prefix: '/api' });
fastify.listen({ port: 0, host: '127.0.0.1' }).then(async () => {
  await exercise(fastify.server.address().port);
  await fastify.close();
});
