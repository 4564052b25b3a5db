import { FASTIFY } from './cells';
import { routeCells } from './harness';

routeCells(FASTIFY);
