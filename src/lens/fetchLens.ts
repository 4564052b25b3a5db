import type { LensFactory } from './Lens';
import { wrapFetch } from './fetch';
import { UndiciFetchInstrumentation } from './UndiciFetchInstrumentation';

/**
 * One row per app `fetch()` call: global fetch wrapped (and msw/nock's fetch when they install theirs), the
 * `undici` package's fetch export through UndiciFetchInstrumentation. Its hops are undici requests: the undici
 * lens folds them into the FetchCall started here. Made after any source that lists a module for the ESM loader:
 * UndiciFetchInstrumentation's constructor registers the loader (see esmHook).
 */
export const fetchLens: LensFactory = ({ config, recorder, logger }) => {
  if (!config.http) return null;
  const maxBodyBytes = config.http.max_body_bytes;
  return {
    name: 'fetch',
    scopes: [],
    instrumentations: [new UndiciFetchInstrumentation(recorder, maxBodyBytes, logger)],
    joins: [],
    enable: () => wrapFetch(recorder, maxBodyBytes, logger),
  };
};
