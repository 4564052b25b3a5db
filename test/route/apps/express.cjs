// Express 4 or 5: /api/users/:id through two nested routers, with middleware before them.
const express = require('express');
const { exercise } = require('./client.cjs');

const app = express();
const api = express.Router();
const users = express.Router();
users.get('/:id', (req, res) => res.json({ id: req.params.id }));
api.use((req, res, next) => next());
api.use('/users', users);
app.use(express.json());
app.use('/api', api);
const server = app.listen(0, '127.0.0.1', async () => {
  await exercise(server.address().port);
  server.close();
});
