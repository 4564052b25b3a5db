import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

/** Every relative link of the README, CONTRIBUTING and the docs pages leads to a file there, and to a heading of it. */
const ROOT = path.resolve(__dirname, '..', '..');
const PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced blocks and inline code: a link-like text in a code sample is not a link. */
function prose(text: string): string {
  return text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  for (const match of prose(fs.readFileSync(file, 'utf8')).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = anchorOf(match[1]!);
    const seen = counts.get(base) ?? 0;
    counts.set(base, seen + 1);
    anchors.add(seen ? `${base}-${seen}` : base);
  }
  for (const match of fs.readFileSync(file, 'utf8').matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(match[1]!);
  return anchors;
}

test('every relative link in README.md, CONTRIBUTING.md and docs/*.md resolves, anchors included', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const page of PAGES) {
    const file = path.join(ROOT, page);
    for (const match of prose(fs.readFileSync(file, 'utf8')).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      checked++;
      const [where, anchor] = target.split('#') as [string, string | undefined];
      const resolved = where ? path.resolve(path.dirname(file), decodeURIComponent(where)) : file;
      if (!resolved.startsWith(ROOT + path.sep) || !fs.existsSync(resolved)) {
        broken.push(`${page}: ${target} (no such file)`);
        continue;
      }
      if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
    }
  }
  assert.ok(checked > 20, `links checked: ${checked}`);
  assert.deepEqual(broken, []);
});
