import { HAPI } from './cells';
import { routeCells } from './harness';

routeCells(HAPI);
