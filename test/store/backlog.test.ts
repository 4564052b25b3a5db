// The Backlog's bound on bytes in flight to the store's thread (issue 28): which units it admits and which it drops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Backlog } from '../../src/store/Backlog';
import { createLogger } from '../../src/util/logger';

const quiet = () => {
  const lines: string[] = [];
  return { lines, logger: createLogger((line) => lines.push(line)) };
};

test('units that fit go; past the bound they are dropped, counted and said once, then said again with the count once drained', () => {
  const { lines, logger } = quiet();
  const backlog = new Backlog(logger, 1000);
  assert.equal(backlog.admit(600), true);
  assert.equal(backlog.admit(300), true);
  assert.equal(backlog.admit(200), false);
  assert.equal(backlog.admit(200), false);
  assert.deepEqual({ units: backlog.droppedUnits, bytes: backlog.droppedBytes }, { units: 2, bytes: 400 });
  assert.equal(lines.length, 1);
  backlog.release(600);
  assert.equal(lines.length, 2);
  assert.match(lines[1]!, /2 capture\(s\)/);
  assert.equal(backlog.inFlight, 300);
});

test('a unit larger than the bound goes while the thread is not behind (at most half the bound in flight), not while it is', () => {
  const { logger } = quiet();
  const backlog = new Backlog(logger, 1000);
  assert.equal(backlog.admit(400), true);
  assert.equal(backlog.admit(5000), true, 'a long job or script capture: in memory already, and it would never fit');
  assert.equal(backlog.inFlight, 5400);
  const behind = new Backlog(logger, 1000);
  assert.equal(behind.admit(600), true);
  assert.equal(behind.admit(5000), false, 'behind: dropped like any other');
});

test('a last version that must go (its window is on the thread) is counted in past the bound', () => {
  const { logger } = quiet();
  const backlog = new Backlog(logger, 1000);
  assert.equal(backlog.admit(900), true);
  assert.equal(backlog.admit(500), false);
  assert.equal(backlog.admit(500, true), true);
  assert.equal(backlog.inFlight, 1400);
  assert.equal(backlog.droppedUnits, 1);
});
