// A CommonJS app that loads posthog-node's ES module build with import(): only Node's import loader sees that
// module load. See posthog.cjs for why its calls hop.
const API = process.env.API_URL;
const oracle = (name, error) => console.log(`ORACLE ${name} ${error.stack.split('\n')[1].trim()}`);

async function main() {
  const { PostHog } = await import('posthog-node');
  const client = (name) => new PostHog('phc_test', { host: `${API}/posthog-${name}`, flushAt: 1, flushInterval: 0, disableGeoip: true, fetchRetryCount: 0 });
  const first = client('first');
  first.capture({ distinctId: 'u1', event: 'signed up' }, oracle('first', new Error()));
  await first.shutdown();
  const second = client('second');
  second.capture({ distinctId: 'u2', event: 'signed up' }, oracle('second', new Error()));
  await second.shutdown();
}
main();
