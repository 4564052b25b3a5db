import { KOA_HONO } from './cells';
import { routeCells } from './harness';

routeCells(KOA_HONO);
