// Preload for bench/calls-app.mjs: what reading a call's stack into its origin costs, apart from the rest. Keeps the
// call sites of 2,000 real calls (after 600) as Probe's OriginQueue hands them over, and at `beforeExit` reads them
// all again with the same `readStack`, 7 passes, printing the median µs per call. The stacks were read once when
// their calls settled, so this is the steady state: the same positions, call after call.
// Usage (PROBE_DIST: a built dist folder):
//   PROBE_DIST=$PWD/dist PROBE_ROOT=<app folder> node --require $PROBE_DIST/register.js \
//     --require ./bench/experiments/read-origins.cjs bench/calls-app.mjs http://127.0.0.1:<port>/x http 3000 500 script
const origin = require(`${process.env.PROBE_DIST}/origin/origin.js`);
const readStack = origin.readStack;
const kept = [];
let seen = 0;
origin.readStack = function (sites, ...rest) {
  if (sites && seen++ > 600 && kept.length < 2000) kept.push(sites);
  return readStack.call(this, sites, ...rest);
};
process.on('beforeExit', () => {
  if (kept.length === 0) return;
  const passes = [];
  for (let pass = 0; pass < 7; pass++) {
    const t0 = process.hrtime.bigint();
    for (const sites of kept) readStack(sites, process.env.PROBE_ROOT, true);
    passes.push(Number(process.hrtime.bigint() - t0) / 1000 / kept.length);
  }
  kept.length = 0;
  process.stderr.write(`readStack µs per call: ${passes.sort((a, b) => a - b)[3].toFixed(2)} (${process.env.PROBE_DIST})\n`);
});
