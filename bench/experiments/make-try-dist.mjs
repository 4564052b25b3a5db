#!/usr/bin/env node
// Builds bench/.exp/<name>/dist: a copy of dist/ with one candidate change applied, for
// `node bench/calls.mjs --try bench/.exp/<name>/dist` (or server.mjs). Experiments, not shipped code.
//   scope  lens/scope.js carries the fetch call and the pool in the OTel context (no ALS of Probe's own)
//   trim   FileStore coalesces trims: at most one running and one pending, each covering every put before it
import { cpSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const name = process.argv[2];
const target = path.join(repo, 'bench', '.exp', name, 'dist');
rmSync(target, { recursive: true, force: true });
mkdirSync(path.dirname(target), { recursive: true });
cpSync(path.join(repo, 'dist'), target, { recursive: true });

if (name === 'scope') {
  cpSync(path.join(here, 'scope-otel-context.js'), path.join(target, 'lens', 'scope.js'));
} else if (name === 'trim') {
  const file = path.join(target, 'store', 'FileStore.js');
  let text = readFileSync(file, 'utf8');
  const put = 'await this.writeAtomic(rowName, JSON.stringify(row));\n        await this.trim();';
  if (!text.includes(put)) throw new Error('FileStore.put no longer looks as expected');
  text = text.replace(put, 'await this.writeAtomic(rowName, JSON.stringify(row));\n        await this.trimSoon();');
  text = text.replace(
    '    async find(id) {',
    `    trimSoon() {
        // One trim running and at most one pending: the pending one starts after the running one ends, so it
        // covers every put that asked before it started.
        if (!this.pendingTrim) {
            this.pendingTrim = (this.runningTrim ?? Promise.resolve()).then(() => {
                this.pendingTrim = null;
                this.runningTrim = this.trim().finally(() => { this.runningTrim = null; });
                return this.runningTrim;
            });
        }
        return this.pendingTrim;
    }
    async find(id) {`,
  );
  writeFileSync(file, text);
} else {
  console.error('usage: node bench/experiments/make-try-dist.mjs scope|trim');
  process.exit(2);
}
console.log(target);
