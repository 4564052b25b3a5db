import { writeFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { runStoreContract } from './contract';

runStoreContract({
  name: 'file',
  config: ({ limit }) => `export default { storage: { driver: 'file', limit: ${limit} } };\n`,
  async corrupt(app, id, what) {
    const dir = path.join(app.dir, '.probe', 'captures');
    const name = what === 'capture' ? `${id}.json` : readdirSync(dir).find((file) => file.endsWith(`-${id}.row`));
    if (!name) throw new Error(`no ${what} file for ${id}`);
    writeFileSync(path.join(dir, name), '{"id": "truncated');
  },
  supportsTtl: false,
});
