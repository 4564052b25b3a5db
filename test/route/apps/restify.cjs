// restify: each handler answers the route restify matched for it (req.getRoute().path) and its parameters.
const restify = require('restify');
const { exercise, watch } = require('./view.cjs');

const server = restify.createServer();
const answer = (req, res, next) => {
  watch(req, res);
  res.send({ route: req.getRoute().path, params: req.params });
  next();
};
server.get('/api/users/:id', answer);
server.get('/health', answer);
server.get('/pairs/:a/:b', answer);
server.listen(0, '127.0.0.1', async () => {
  await exercise(server.address().port);
  server.close();
});
