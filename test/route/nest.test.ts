import { NESTJS } from './cells';
import { routeCells } from './harness';

routeCells(NESTJS);
