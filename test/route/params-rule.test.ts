import assert from 'node:assert/strict';
import { test } from 'node:test';
import { routeFromParams } from '../../src/lens/routes/paramsRoute';

/** A request object as a router leaves it: its own `params` (and `route`, when the router keeps one). */
const request = (params: unknown, route?: unknown): object => (route === undefined ? { params } : { params, route });

test('each segment equal to one parameter value becomes :name; the query and a trailing slash are left out or kept as sent', () => {
  assert.equal(routeFromParams(request({ id: '42' }), '/api/users/42?expand=1', 200), '/api/users/:id');
  assert.equal(routeFromParams(request({ org: 'acme', repo: 'probe' }), '/orgs/acme/repos/probe/', 201), '/orgs/:org/repos/:repo/');
  // The router hands the decoded value; the path is as sent.
  assert.equal(routeFromParams(request({ name: 'café' }), '/files/caf%C3%A9', 200), '/files/:name');
  assert.equal(routeFromParams(request({ name: '50%' }), '/files/50%', 200), '/files/:name', 'a malformed escape compares as sent');
});

test('no route rather than a guess', () => {
  const none = (params: unknown, target: string, status: number | null = 200) =>
    assert.equal(routeFromParams(request(params), target, status), null, JSON.stringify([params, target]));
  none({ a: '7', b: '7' }, '/pairs/7/7'); // the same value in two segments
  none({ name: 'users' }, '/users/users'); // a value equal to the route's own text
  none({ a: '7', b: '7' }, '/x/7'); // two parameters in one segment
  none({ name: 'a', ext: 'txt' }, '/files/a.txt'); // parameters inside a segment
  none({ id: '42', page: '2' }, '/users/42?page=2'); // a query value mapped into the parameters
  none({ '*': 'a/b' }, '/files/a/b'); // a wildcard
  none({ 0: '42' }, '/users/42'); // a regular expression's group
  none({ splat: ['a', 'b'] }, '/a/b'); // Express 5's wildcard: a list
  none({ id: '' }, '/users/'); // empty
  none({ id: undefined }, '/users'); // an optional parameter left out
  none({ id: '42' }, '/users/42', 404); // a 404: no route, or a route that found nothing
  none({ id: '42' }, 'http://example.com/users/42'); // a proxy's absolute target
  none({ id: '42' }, '*');
  none(null, '/users/42');
  none(['42'], '/users/42');
  assert.equal(routeFromParams({}, '/users/42', 200), null, 'no parameters at all');
  assert.equal(routeFromParams(request({ id: '42' }), undefined, 200), null, 'no target');
});

test('without parameters the path is the route only when the route the framework matched is that path', () => {
  assert.equal(routeFromParams(request({}, { path: '/health' }), '/health?full=1', 200), '/health');
  // A middleware answered (static files): no route object.
  assert.equal(routeFromParams(request({}), '/assets/app.js', 200), null);
  // A router's own path below its mount point (Express's `req.route.path` in a mounted router) is not the route.
  assert.equal(routeFromParams(request({}, { path: '/health' }), '/api/health', 200), null);
  assert.equal(routeFromParams(request({}, { path: '/health' }), '/health', 404), null);
});

test('only own data properties are read: a getter is never called; nothing is written; nothing thrown', () => {
  let called = 0;
  const req = {};
  Object.defineProperty(req, 'params', {
    get() {
      called++;
      throw new Error('not here');
    },
  });
  assert.equal(routeFromParams(req, '/users/42', 200), null);
  const params = {};
  Object.defineProperty(params, 'id', { enumerable: true, get: () => (called++, '42') });
  assert.equal(routeFromParams(request(params), '/users/42', 200), null);
  assert.equal(called, 0);
  const plain = { params: { id: '42' }, route: { path: '/x' } };
  const copy = JSON.stringify(plain);
  routeFromParams(Object.freeze(plain), '/users/42', 200);
  assert.equal(JSON.stringify(plain), copy);
});

test('a long path with many parameters is read in one pass', () => {
  const segments = Array.from({ length: 200_000 }, (_, i) => `s${i}`);
  const params = Object.fromEntries(segments.slice(0, 32).map((segment, i) => [`p${i}`, segment]));
  const route = routeFromParams(request(params), `/${segments.join('/')}`, 200);
  assert.ok(route?.startsWith('/:p0/:p1/'));
  // More parameters than one path's router match: none.
  const many = Object.fromEntries(segments.slice(0, 33).map((segment, i) => [`p${i}`, segment]));
  assert.equal(routeFromParams(request(many), `/${segments.join('/')}`, 200), null);
});
