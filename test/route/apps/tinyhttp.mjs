// tinyhttp: each handler answers the route tinyhttp matched for it (req.route.path, kept with enableReqRoute) and
// its parameters.
import { createRequire } from 'node:module';
import { App } from '@tinyhttp/app';

const { exercise, watch } = createRequire(import.meta.url)('./view.cjs');
const app = new App({ settings: { enableReqRoute: true } });
const answer = (req, res) => {
  watch(req, res);
  res.json({ route: req.route.path, params: req.params });
};
app.get('/api/users/:id', answer);
app.get('/health', answer);
app.get('/pairs/:a/:b', answer);
const server = app.listen(
  0,
  async () => {
    await exercise(server.address().port);
    server.close();
  },
  '127.0.0.1',
);
