import { OTEL_CELLS } from './cells';
import { matrix } from './matrix';

matrix(OTEL_CELLS);
