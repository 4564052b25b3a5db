import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { fetchOf, jsString } from '../../src/dashboard/ui/fetchSnippet';
import { row } from './fixture-captures';

// "Copy as fetch" builds code from recorded text; a span sent to `probe collect` can carry any URL, header or
// body. Every value must stay one string literal: evaluated, the snippet calls fetch with exactly those values.

const HOSTILE = 'a"b\'c`d${process.exit(1)}e\\f\ng\r\u2028h\u2029i\u0000j\u001b[2J\u009bk\u202el</script>';

describe('jsString', () => {
  const table: Array<[string, string]> = [
    ['plain', '"plain"'],
    ['', '""'],
    [`"quoted" 'single'`, `"\\"quoted\\" 'single'"`],
    ['`tick` ${x}', '"`tick` ${x}"'],
    ['a\nb\r\tc', '"a\\nb\\r\\tc"'],
    ['back\\slash', '"back\\\\slash"'],
    ['line\u2028para\u2029', '"line\\u2028para\\u2029"'],
    ['\u001b[2J\u007f\u009b', '"\\u001b[2J\\u007f\\u009b"'],
    ['abc\u202efdp.exe', '"abc\\u202efdp.exe"'],
    ['\ud800 lone', '"\\ud800 lone"'],
    ['café ✓ ********', '"café ✓ ********"'],
  ];
  for (const [text, literal] of table) {
    it(`writes ${JSON.stringify(text)}`, () => {
      assert.equal(jsString(text), literal);
      assert.equal(vm.runInNewContext(literal), text, 'evaluates back to the same text');
    });
  }
});

/** Runs the snippet with a stand-in fetch that returns what it was called with. */
function run(snippet: string): { url: unknown; init: { method: string; headers?: Record<string, string>; body?: string } } {
  const calls: unknown[][] = [];
  vm.runInNewContext(snippet, { fetch: (...args: unknown[]) => calls.push(args) });
  assert.equal(calls.length, 1, 'one fetch call and nothing else');
  return { url: calls[0]![0], init: calls[0]![1] as never };
}

describe('fetchOf', () => {
  it('writes method, headers and a JSON body, masked values left masked, framing headers left out', () => {
    const snippet = fetchOf(
      row({
        method: 'POST',
        url: 'https://api.test/v1/charges?key=********',
        request_headers: { 'content-type': 'application/json', authorization: '********', 'content-length': '42', host: 'api.test' },
        request_payload: { amount: 4200, card: '********' },
      }),
    );
    assert.equal(
      snippet,
      [
        'fetch("https://api.test/v1/charges?key=********", {',
        '  method: "POST",',
        '  headers: {',
        '    "content-type": "application/json",',
        '    "authorization": "********",',
        '  },',
        '  body: "{\\"amount\\":4200,\\"card\\":\\"********\\"}",',
        '});',
      ].join('\n'),
    );
  });

  it('writes a GET without headers or body as the URL and method only', () => {
    assert.equal(fetchOf(row({ method: 'GET', url: 'https://a.test/x', request_headers: {} })), 'fetch("https://a.test/x", {\n  method: "GET",\n});');
  });

  const hostile: Array<[string, Parameters<typeof row>[0]]> = [
    ['URL', { method: 'GET', url: `https://a.test/${HOSTILE}` }],
    ['method', { method: HOSTILE, url: 'https://a.test/x' }],
    ['header name and value', { method: 'GET', url: 'https://a.test/x', request_headers: { [HOSTILE]: HOSTILE } }],
    ['text body', { method: 'PUT', url: 'https://a.test/x', request_body: HOSTILE }],
    ['JSON body', { method: 'POST', url: 'https://a.test/x', request_payload: { [HOSTILE]: HOSTILE } }],
  ];
  for (const [part, spec] of hostile) {
    it(`keeps hostile text in the ${part} a string: evaluated, fetch gets exactly it`, () => {
      const recorded = row(spec);
      const snippet = fetchOf(recorded);
      assert.doesNotMatch(snippet, /[\u2028\u2029\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/, 'no raw control, separator or bidi character');
      const { url, init } = run(snippet);
      assert.equal(url, recorded.url);
      assert.equal(init.method, recorded.method);
      if (part === 'header name and value') assert.equal(init.headers?.[HOSTILE], HOSTILE);
      if (part === 'text body') assert.equal(init.body, HOSTILE);
      if (part === 'JSON body') assert.deepEqual(JSON.parse(init.body!), { [HOSTILE]: HOSTILE });
    });
  }
});
