// posthog-node queues each event and sends the batch later, from a promise chain of its own (`capture` returns at
// once; the send starts in a `.then()` callback and its core package's async flush), so no app frame is on the stack
// when it calls fetch. It is in no list of Probe's. Each call's line also makes an Error: the oracle is the line Node
// prints for it. One client per call, each under its own path, to tell the calls apart.
const { PostHog } = require('posthog-node');
const API = process.env.API_URL;
const oracle = (name, error) => console.log(`ORACLE ${name} ${error.stack.split('\n')[1].trim()}`);
const client = (name) => new PostHog('phc_test', { host: `${API}/posthog-${name}`, flushAt: 1, flushInterval: 0, disableGeoip: true, fetchRetryCount: 0 });

async function main() {
  const first = client('first');
  first.capture({ distinctId: 'u1', event: 'signed up' }, oracle('first', new Error()));
  await first.shutdown();
  const second = client('second');
  second.capture({ distinctId: 'u2', event: 'signed up' }, oracle('second', new Error()));
  await second.shutdown();
}
main();
