// Fastify 5 as an ES module: /api/users/:id from two nested plugins with prefixes.
import Fastify from 'fastify';
import { exercise } from './client.cjs';

const fastify = Fastify();
fastify.register(async (api) => {
  api.register(async (users) => {
    users.get('/:id', async (request) => ({ id: request.params.id }));
  }, { prefix: '/users' });
}, { prefix: '/api' });
await fastify.listen({ port: 0, host: '127.0.0.1' });
await exercise(fastify.server.address().port);
await fastify.close();
