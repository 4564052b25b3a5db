// Hapi: /api/users/{id} from a plugin registered with the prefix /api; a 404 is Hapi's own not-found route.
const Hapi = require('@hapi/hapi');
const { exercise } = require('./client.cjs');

const users = {
  name: 'users',
  register(server) {
    server.route({ method: 'GET', path: '/users/{id}', handler: (request) => ({ id: request.params.id }) });
  },
};

(async () => {
  const server = Hapi.server({ port: 0, host: '127.0.0.1' });
  await server.register(users, { routes: { prefix: '/api' } });
  await server.start();
  await exercise(server.info.port);
  await server.stop();
})();
