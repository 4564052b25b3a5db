import { EXPRESS } from './cells';
import { routeCells } from './harness';

routeCells(EXPRESS);
