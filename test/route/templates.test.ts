import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExpressTemplates, joinTemplate } from '../../src/lens/routes/ExpressTemplates';

/** Replays what Express's router reports as it walks a request through its layers. */
function walk(steps: Array<['mount' | 'route', string, unknown]>): string[] {
  const seen: string[] = [];
  const templates = new ExpressTemplates((_request, route) => seen.push(route));
  const req: { baseUrl: string } = { baseUrl: '' };
  for (const [kind, baseUrl, pattern] of steps) {
    req.baseUrl = baseUrl;
    if (kind === 'mount') templates.mount(req, pattern);
    else templates.route(req, pattern);
  }
  return seen;
}

test('nested mounts join into the full template, params in mount paths included', () => {
  assert.deepEqual(
    walk([
      ['mount', '', '/'],
      ['mount', '/api', '/api'],
      ['mount', '/api/users', '/users/'],
      ['route', '/api/users', '/:id'],
    ]),
    ['/api/users/:id'],
  );
  assert.deepEqual(
    walk([
      ['mount', '/orgs/acme', '/orgs/:org'],
      ['mount', '/orgs/acme/users', '/users'],
      ['route', '/orgs/acme/users', '/:id'],
    ]),
    ['/orgs/:org/users/:id'],
  );
  assert.deepEqual(walk([['route', '', '/health']]), ['/health']);
  assert.deepEqual(
    walk([
      ['mount', '/api/users', '/api/users'],
      ['route', '/api/users', '/'],
    ]),
    ['/api/users'],
  );
});

test('a sibling mounted at the same concrete prefix replaces one that fell through', () => {
  // /api/:version matched /api/users first, called next(); /api/users then routed it.
  assert.deepEqual(
    walk([
      ['mount', '/api', '/api'],
      ['mount', '/api/users', '/:version'],
      ['mount', '/api/users', '/users'],
      ['route', '/api/users', '/:id'],
    ]),
    ['/api/users/:id'],
  );
});

test('mount paths that cannot be joined leave the route unknown', () => {
  assert.deepEqual(
    walk([
      ['mount', '/files/a', '/files/*path'],
      ['route', '/files/a', '/:id'],
    ]),
    [],
  );
  assert.deepEqual(
    walk([
      ['mount', '/v1', /^\/v\d/],
      ['route', '/v1', '/:id'],
    ]),
    [],
  );
  assert.deepEqual(walk([['route', '', ['/a', '/b']]]), []);
});

test('joinTemplate', () => {
  assert.equal(joinTemplate('', ''), '/');
  assert.equal(joinTemplate('/api', 'users'), '/api/users');
});
