import { test } from 'node:test';
import assert from 'node:assert/strict';
import { plainSettings } from '../../src/config/plainSettings';
import { validateSettings } from '../../src/config/schema';

// The oracle is the schema: whatever the fast path takes, it gives exactly what validateSettings gives, and it
// never takes what the schema refuses.
function schemaOf(file: unknown, env: NodeJS.ProcessEnv): unknown {
  try {
    return validateSettings(file, env, '/app');
  } catch (error) {
    return { refused: (error as Error).message };
  }
}

function agrees(file: unknown, env: NodeJS.ProcessEnv = {}): boolean {
  const fast = plainSettings(file, env);
  const oracle = schemaOf(file, env);
  if (fast === null) return false;
  assert.ok(!(oracle as { refused?: string }).refused, `taken but refused by the schema: ${JSON.stringify(file)} ${JSON.stringify(env)}`);
  assert.deepStrictEqual(fast, oracle, `${JSON.stringify(file)} ${JSON.stringify(env)}`);
  return true;
}

test('scalar settings are read without the schema, exactly as the schema reads them', () => {
  const taken = [
    { sampling: { rate: 0.1 } },
    { sampling: { rate: 0, max_per_second: 2.5 } },
    { origin: { enabled: false }, service: 'shop', enabled: true },
    { storage: { driver: 'cache', limit: 500 } },
    { storage: { driver: 'file' }, sampling: null },
    { lenses: { HttpClientLens: true } },
    { lenses: { HttpClientLens: false } },
    { lenses: { HttpClientLens: { bodies: true, max_body_bytes: 0, max_rows: 10 } } },
    { background: { window_seconds: 1.5 }, findings: { n_plus_one: 2 } },
  ];
  for (const file of taken) assert.ok(agrees(file), JSON.stringify(file));
  assert.ok(agrees({ sampling: { rate: 1 } }, { PROBE_SAMPLE_RATE: '0.25', PROBE_ENABLED: ' Yes', PROBE_STORAGE: 'cache' }));
  assert.ok(agrees({}, { PROBE_STORAGE: '', PROBE_ENABLED: '' }));
});

test('anything else is left to the schema, which words the error', () => {
  const left = [
    { sampling: { rate: 1.5 } },
    { sampling: { rate: '0.1' } },
    { storage: { limit: 0 } },
    { storage: { limit: 2.5 } },
    { storage: { file: { path: '.probe/elsewhere' } } },
    { storage: { redis: { url: 'redis://x' } } },
    { lenses: { HttpClientLens: { capture: { response_types: {} } } } },
    { lenses: { OtherLens: true } },
    { mask: { headers: { 'x-token': 'full' } } },
    { except: ['**/health'] },
    { findings: { n_plus_one: 1 } },
    { service: '' },
    { sampling: { rate: 0.1, typo: 1 } },
    { register: () => {} },
    [],
  ];
  for (const file of left) assert.equal(plainSettings(file, {}), null, JSON.stringify(file));
  for (const env of [{ PROBE_SAMPLE_RATE: 'often' }, { PROBE_SAMPLE_RATE: '' }, { PROBE_ENABLED: 'maybe' }]) {
    assert.equal(plainSettings({}, env), null, JSON.stringify(env));
  }
});

test('on random configs the fast path never disagrees with the schema', () => {
  // Values of every kind at the paths the fast path knows and at some it does not.
  const values: unknown[] = [true, false, 0, 1, 2, -1, 0.5, 1.5, 1e9, Infinity, NaN, '', 'x', 'cache', null, {}, [], { rate: 0.2 }];
  const paths = [
    ['enabled'],
    ['service'],
    ['storage', 'driver'],
    ['storage', 'limit'],
    ['storage', 'redis'],
    ['origin', 'enabled'],
    ['sampling', 'rate'],
    ['sampling', 'max_per_second'],
    ['background', 'window_seconds'],
    ['findings', 'n_plus_one'],
    ['lenses', 'HttpClientLens'],
    ['lenses', 'HttpClientLens', 'bodies'],
    ['lenses', 'HttpClientLens', 'max_rows'],
    ['mask', 'inputs'],
    ['origin'],
    ['sampling'],
  ];
  // A fixed seed: the same cases every run, none of them written out by hand.
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  let taken = 0;
  for (let round = 0; round < 1000; round++) {
    const file: Record<string, unknown> = {};
    for (let i = 0, n = 1 + next(3); i < n; i++) {
      const at = paths[next(paths.length)]!;
      let into = file;
      for (const key of at.slice(0, -1)) {
        if (typeof into[key] !== 'object' || into[key] === null || Array.isArray(into[key])) into[key] = {};
        into = into[key] as Record<string, unknown>;
      }
      into[at.at(-1)!] = values[next(values.length)];
    }
    const env = next(4) === 0 ? { PROBE_SAMPLE_RATE: String(values[next(values.length)]) } : {};
    if (agrees(file, env)) taken++;
  }
  // Enough of them went the fast way for the comparison to mean something.
  assert.ok(taken > 15, `only ${taken} taken`);
});
