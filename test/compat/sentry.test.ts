import { SENTRY_CELLS } from './cells';
import { matrix } from './matrix';

matrix(SENTRY_CELLS);
