// Express 4 with a middleware mounted on a path with a parameter: each answer says the route Express matched for
// it (req.route.path), none for the middleware's.
const express = require('express');
const { exercise, watch } = require('./view.cjs');

const app = express();
const answer = (req, res) => {
  watch(req, res);
  res.json({ route: req.route ? req.route.path : null, params: req.params });
};
app.get('/api/users/:id', answer);
app.get('/health', answer);
app.use('/pairs/:a', answer);
const server = app.listen(0, '127.0.0.1', async () => {
  await exercise(server.address().port);
  server.close();
});
