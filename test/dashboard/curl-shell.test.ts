import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REFUSED_CURL, curlOf } from '../../src/dashboard/ui/curl';
import { shellWord } from '../../src/util/shellWord';
import { row } from './fixture-captures';

// "Copy as curl" builds a command from recorded text; a span sent to `probe collect` can carry any method,
// URL, header or body. Pasted into a shell, the command must run curl with exactly those words and nothing else.

const EVIL_METHOD = "GET;$'\\164\\157uch' x";

describe('shellWord', () => {
  const table: Array<[string, string]> = [
    ['plain', `'plain'`],
    ['', `''`],
    [`it's`, `'it'\\''s'`],
    ['$(touch x) `touch x` ;|&<>*?~!#', `'$(touch x) \`touch x\` ;|&<>*?~!#'`],
    ['a\nb', `$'a\\x0ab'`],
    ['\u001b[2J\r\u0007', `$'\\x1b[2J\\x0d\\x07'`],
    [`it's\\\t`, `$'it\\'s\\\\\\x09'`],
    ['\u009b31m', `$'\\xc2\\x9b31m'`],
    ['abc\u202efdp.exe', `$'abc\\xe2\\x80\\xaefdp.exe'`],
    ['a\u200eb\u200fc\u061cd', `$'a\\xe2\\x80\\x8eb\\xe2\\x80\\x8fc\\xd8\\x9cd'`],
    ['café ✓', `'café ✓'`],
  ];
  for (const [text, word] of table) {
    it(`quotes ${JSON.stringify(text)}`, () => assert.equal(shellWord(text), word));
  }
});

describe('curlOf', () => {
  it('refuses a method that is not an HTTP token, and quotes one that is', () => {
    for (const method of [EVIL_METHOD, 'GET POST', 'GET\n', '', 'G(ET)', 'GÉT']) {
      assert.equal(curlOf(row({ method, url: 'https://a.test/x' })), REFUSED_CURL, method);
    }
    const odd = curlOf(row({ method: "M'$|`&", url: 'https://a.test/x' }));
    assert.match(odd, /^curl -X 'M'\\''\$\|`&' 'https:\/\/a\.test\/x'/);
    assert.match(curlOf(row({ method: 'PATCH', url: 'https://a.test/x' })), /^curl -X PATCH 'https:\/\/a\.test\/x'/);
  });
});

describe('a copied curl command pasted into bash', () => {
  let sandbox: string;
  let bin: string;
  before(() => {
    sandbox = mkdtempSync(path.join(os.tmpdir(), 'probe-curl-'));
    bin = path.join(sandbox, 'bin');
    mkdirSync(bin);
    // A stand-in curl that prints the words it was given, as JSON, and does nothing else.
    writeFileSync(path.join(bin, 'curl'), `#!${process.execPath}\nprocess.stdout.write(JSON.stringify(process.argv.slice(2)) + '\\n');\n`);
    chmodSync(path.join(bin, 'curl'), 0o755);
  });
  after(() => rmSync(sandbox, { recursive: true, force: true }));

  /** Runs the text as bash would run it pasted, in an empty folder; returns curl's argv and what is left in the folder. */
  function paste(command: string): { argv: string[]; files: string[] } {
    const work = mkdtempSync(path.join(sandbox, 'work-'));
    const result = spawnSync('bash', ['--noprofile', '--norc', '-c', command], {
      cwd: work,
      env: { PATH: `${bin}:/usr/bin:/bin`, HOME: work, LANG: 'C.UTF-8' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(result.status, 0, `${result.stderr}\n${command}`);
    assert.equal(result.stderr, '');
    const lines = result.stdout.split('\n').filter(Boolean);
    assert.equal(lines.length, 1, `curl ran once and nothing else printed: ${result.stdout}`);
    return { argv: JSON.parse(lines[0]!) as string[], files: readdirSync(work) };
  }

  const hostile = [
    `'; touch x; '`,
    '$(touch x)',
    '`touch x`',
    'it\'s "quoted" \\ back\\slash',
    'line one\nline two; touch x\n',
    '\r\u001b[2J\u001b]8;;http://evil.test/\u0007link\u001b]8;;\u0007 \u0000-free',
    '$HOME ${PATH} !! !-1 ~ *',
    'RTL \u202e txt.exe',
  ].map((text) => text.replace('\u0000', ''));

  it('runs curl with exactly the recorded words for hostile URLs, headers and bodies', () => {
    for (const text of hostile) {
      const call = row({
        method: 'POST',
        url: `https://a.test/p?q=${text}`,
        request_headers: { 'x-note': text, 'content-type': 'text/plain' },
        request_bytes: text.length,
      });
      call.request_body = text;
      const { argv, files } = paste(curlOf(call));
      assert.deepEqual(files, [], 'no file created');
      assert.deepEqual(argv, ['-X', 'POST', `https://a.test/p?q=${text}`, '-H', `x-note: ${text}`, '-H', 'content-type: text/plain', '--data-raw', text]);
    }
  });

  it('a method that would run a command copies a comment that does nothing', () => {
    const command = curlOf(row({ method: EVIL_METHOD, url: 'https://a.test/x' }));
    const work = mkdtempSync(path.join(sandbox, 'work-'));
    const result = spawnSync('bash', ['--noprofile', '--norc', '-c', command], { cwd: work, env: { PATH: `${bin}:/usr/bin:/bin` }, encoding: 'utf8' });
    assert.equal(result.status, 0);
    assert.equal(result.stdout, '');
    assert.deepEqual(readdirSync(work), []);
  });

  it('a method of odd but valid token characters reaches curl as one word', () => {
    const { argv, files } = paste(curlOf(row({ method: "M'$|`&~", url: 'https://a.test/x', request_headers: {} })));
    assert.deepEqual(files, []);
    assert.deepEqual(argv, ['-X', "M'$|`&~", 'https://a.test/x']);
  });
});
