import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Unit } from '../../src/runtime/Unit';

const request = () => new Unit('request', 'GET /x', 0, 'trace', null, null);

test("a page router's route (read inside the rendering) names a request the server's router did not; never one it did", () => {
  // Nitro matched an API route; Nuxt then renders its HTML error page, whose router may match a catch-all page.
  const api = request();
  api.routeFrom = () => '/api/items/:id';
  api.fallbackRoute(() => '/:slug(.*)*');
  assert.equal(api.frameworkRoute(), '/api/items/:id');
  // Nitro's reader gives none for its renderer's catch-all: the page's route names the request.
  const page = request();
  page.routeFrom = () => null;
  page.fallbackRoute(() => '/users/:id()');
  assert.equal(page.frameworkRoute(), '/users/:id()');
  // Rendered twice (a page, then its error page): the first route found stands; none found, none.
  page.fallbackRoute(() => '/other');
  assert.equal(page.frameworkRoute(), '/users/:id()');
  const missing = request();
  missing.fallbackRoute(() => null);
  missing.fallbackRoute(() => {
    throw new Error('no router');
  });
  assert.equal(missing.frameworkRoute(), null);
});
