// Express 5 as an ES module: /api/users/:id through two nested routers.
import express from 'express';
import { exercise } from './client.cjs';

const app = express();
const api = express.Router();
const users = express.Router();
users.get('/:id', (req, res) => res.json({ id: req.params.id }));
api.use('/users', users);
app.use(express.json());
app.use('/api', api);
const server = app.listen(0, '127.0.0.1', async () => {
  await exercise(server.address().port);
  server.close();
});
