import type { LensFactory } from './Lens';
import { wrapFetch } from './fetch';
import { cacheLayerFetch } from './cacheLayerFetch';
import { watchNextFetch } from './nextFetch';
import { UndiciFetchInstrumentation } from './UndiciFetchInstrumentation';
import { MockAgentInstrumentation } from './mockAgentCalls';

/**
 * One row per app `fetch()` call: global fetch wrapped (and msw/nock's fetch when they install theirs, and
 * Next.js's, whose data cache answers calls without the fetch below), the `undici` package's fetch export through
 * UndiciFetchInstrumentation, and the calls undici's MockAgent answers outside a fetch through MockAgentInstrumentation. Its hops are undici requests: the undici lens folds them into the FetchCall started
 * here. Made after any source that lists a module for the ESM loader: UndiciFetchInstrumentation's constructor
 * registers the loader (see esmHook).
 */
export const fetchLens: LensFactory = ({ config, recorder, logger, subscribe }) => {
  if (!config.http) return null;
  const maxBodyBytes = config.http.max_body_bytes;
  return {
    name: 'fetch',
    scopes: [],
    instrumentations: [new UndiciFetchInstrumentation(recorder, maxBodyBytes, logger), new MockAgentInstrumentation(recorder, logger)],
    joins: [],
    enable: () => {
      const unwrap = wrapFetch(recorder, maxBodyBytes, logger);
      const next = watchNextFetch((layer) => cacheLayerFetch(layer, recorder, logger), logger);
      // Next.js 14 marks its patch only on the function, installed while it serves a request: seen at the next one.
      const unsubscribe = subscribe('http.server.request.start', () => next.adopt());
      return () => {
        unsubscribe();
        next.stop();
        unwrap();
      };
    },
  };
};
