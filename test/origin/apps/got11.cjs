// got 11 (CommonJS): plain calls, a got.extend() client, a retry and a stream, each with its `// call:NAME` line.
const got = require('got');
const api = process.env.API_URL;

const client = got.extend({ prefixUrl: api, responseType: 'json', retry: { limit: 1, calculateDelay: ({ computedValue }) => (computedValue ? 1 : 0) } });

async function main() {
  await got(`${api}/users/got11`); // call:got
  await client.get('users/got11-extend'); // call:extend
  await client.post('users/got11-post', { json: { a: 1 } }); // call:extend-post
  await client.get('users/got11-retry'); // call:retry
  await new Promise((resolve, reject) => got.stream(`${api}/users/got11-stream`).on('error', reject).on('end', resolve).resume()); // call:stream
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
