import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncResource } from 'node:async_hooks';
import { TestStack } from '../../src/runtime/TestStack';
import { Unit } from '../../src/runtime/Unit';

const unit = (name: string) => new Unit('test', name, Date.now(), name, null, null);

test('a context names its test, or no test; a context that says nothing falls back to the one chain of running tests', async () => {
  const stack = new TestStack();
  const [a, b, inner] = [unit('a'), unit('b'), unit('a > inner')];
  stack.push(a);
  assert.equal(stack.current(), a, 'one test running: it');
  stack.push(inner);
  assert.equal(stack.current(), inner, 'a test and its subtest: the subtest');
  stack.push(b);
  assert.equal(stack.current(), undefined, 'siblings side by side: none by the clock');
  assert.equal(
    stack.run(b, () => stack.current()),
    b,
  );
  // What a test's context starts keeps it, through async hops.
  assert.equal(await stack.run(a, async () => (await Promise.resolve(), stack.current())), a);
  stack.remove(b);
  stack.remove(inner);
  assert.equal(
    stack.run(null, () => stack.current()),
    undefined,
    'a context that says no test: none, even with one test running',
  );
  a.closed = true;
  assert.equal(
    stack.run(a, () => stack.current()),
    undefined,
    'a closed test claims nothing',
  );
});

test("bindResource: what a resource runs from then on is the test's (or no test's), through async hops", async () => {
  const stack = new TestStack();
  const [a, b] = [unit('a'), unit('b')];
  stack.push(a);
  stack.push(b);
  // Made in no test's context, as a runner makes its resources where a test is declared.
  const resource = new AsyncResource('RunnerTest');
  assert.equal(stack.bindResource(resource, a), true);
  assert.equal(await resource.runInAsyncScope(async () => (await Promise.resolve(), stack.current())), a);
  assert.equal(stack.current(), undefined, 'the context around is untouched');
  assert.equal(stack.bindResource(resource, b), true, 'bound again, to another test');
  assert.equal(
    resource.runInAsyncScope(() => stack.current()),
    b,
  );
  stack.remove(b);
  assert.equal(stack.bindResource(resource, null), true);
  assert.equal(
    resource.runInAsyncScope(() => stack.current()),
    undefined,
    'no test: not the one running',
  );
});
