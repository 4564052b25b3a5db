import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runStoreContract } from './contract';

const DRIVER = path.join(__dirname, 'fixtures', 'json-file-store.mjs');

// A custom driver registered the way users do it: register(probe) + extendStore in probe.config.mjs.
runStoreContract({
  name: 'custom (extendStore)',
  config: ({ limit }) => `import path from 'node:path';
import { JsonFileStore } from ${JSON.stringify(DRIVER)};
export default {
  storage: { driver: 'jsonfile', limit: ${limit}, jsonfile: { file: '.probe/custom/captures.json' } },
  register(probe) {
    probe.extendStore('jsonfile', (app, config) => new JsonFileStore(path.resolve(app.root, config.file), config.limit));
  },
};
`,
  async corrupt(app, id, what) {
    const file = path.join(app.dir, '.probe', 'custom', 'captures.json');
    const data = JSON.parse(readFileSync(file, 'utf8'));
    data.captures[id] = what === 'capture' ? 'garbage' : { id, name: 'no sections' };
    writeFileSync(file, JSON.stringify(data));
  },
  supportsTtl: false,
});
