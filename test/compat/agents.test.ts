import { AGENT_CELLS } from './cells';
import { matrix } from './matrix';

matrix(AGENT_CELLS);
