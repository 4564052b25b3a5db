// Hapi as an ES module: /api/users/{id} from a plugin registered with the prefix /api.
import Hapi from '@hapi/hapi';
import { exercise } from './client.cjs';

const server = Hapi.server({ port: 0, host: '127.0.0.1' });
await server.register(
  {
    name: 'users',
    register(plugin) {
      plugin.route({ method: 'GET', path: '/users/{id}', handler: (request) => ({ id: request.params.id }) });
    },
  },
  { routes: { prefix: '/api' } },
);
await server.start();
await exercise(server.info.port);
await server.stop();
