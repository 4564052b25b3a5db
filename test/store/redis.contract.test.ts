import { after, before } from 'node:test';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { RedisServer } from '../helpers/redis';
import { runStoreContract } from './contract';

let server: RedisServer;
before(async () => {
  server = await RedisServer.start();
});
after(async () => {
  await server?.kill();
});

function prefixOf(dir: string): string {
  const text = readFileSync(path.join(dir, 'probe.config.mjs'), 'utf8');
  return /prefix: "([^"]+)"/.exec(text)![1]!;
}

runStoreContract({
  name: 'redis',
  config: ({ limit, ttl = 3600 }) =>
    `export default { storage: { driver: 'redis', limit: ${limit}, redis: { url: ${JSON.stringify(server.url)}, prefix: ${JSON.stringify(`probe-test-${randomBytes(4).toString('hex')}:`)}, ttl: ${ttl} } } };\n`,
  async corrupt(app, id, what) {
    await server.cli('SET', `${prefixOf(app.dir)}${what}:${id}`, '{"id": "truncated');
  },
  supportsTtl: true,
});
