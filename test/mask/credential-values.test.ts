// Masking by values (issue 23, item 7): credentials in well-known formats are masked wherever they sit, under
// any name or none; a readable near-miss sits beside each format. Tokens are built by concatenation so that
// this file holds none whole (secret scanners read repositories too).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maskCredentials, type ScanStats } from '../../src/mask/credentialValues';
import { resolveConfig } from '../../src/config/resolve';

const masker = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} }).masker;
const M = '********';
const j = (...parts: string[]) => parts.join('');

const B62 = 'aB3dE5gH7jK9mN1pQ2sT4vW6yZ8cF0hJ';
const JWT = j('eyJ', 'hbGciOiJIUzI1NiJ9', '.', 'eyJzdWIiOiIxMjM0NTY3ODkwIn0', '.', 'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U');

/** [format, token, what stays of it, readable near-miss]. */
const FORMATS: Array<[string, string, string, string]> = [
  ['JWT', JWT, 'eyJ', j('eyJ', 'hbGciOiJIUzI1NiJ9', '.', 'eyJzdWIiOiIxIn0')],
  [
    'JWE (five parts)',
    j('eyJ', 'hbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0', '..', 'iv0123456789', '.', 'ciphertext0123', '.', 'tag0123'),
    'eyJ',
    j('eyJ', 'hbGciOiJIUzI1NiJ9'),
  ],
  ['GitHub ghp_', j('gh', 'p_', B62, 'abcd'), 'ghp_', j('gh', 'p_', 'tooShort123')],
  ['GitHub gho_', j('gh', 'o_', B62, 'abcd'), 'gho_', j('gh', 'x_', B62, 'abcd')],
  ['GitHub ghu_', j('gh', 'u_', B62, 'abcd'), 'ghu_', j('Xgh', 'u_', B62, 'abcd')],
  ['GitHub ghs_', j('gh', 's_', B62, 'abcd'), 'ghs_', j('gh', 's_', 'short')],
  ['GitHub ghr_', j('gh', 'r_', B62, 'abcd'), 'ghr_', 'ghr_'],
  ['GitHub fine-grained', j('github', '_pat_', '11ABCDEFG0', B62, '_', B62), 'github_pat_', j('github', '_pat_', 'abc')],
  ['Slack bot token', j('xo', 'xb-', '123456789012-1234567890123-', B62), 'xoxb-', 'xoxo-everyone'],
  ['Slack user token', j('xo', 'xp-', '123456789012-', B62), 'xoxp-', j('xo', 'xz-', '123456789012-', B62)],
  ['Slack app token', j('xa', 'pp-', '1-A0123456789-', B62), 'xapp-', 'xapp-store'],
  [
    'Slack webhook',
    j('https://hooks.', 'slack.com/services/', 'T00000000/B00000000/', B62),
    'https://hooks.slack.com/services/',
    'https://hooks.slack.com/apps/A0123',
  ],
  ['Stripe secret key', j('sk', '_live_', B62), 'sk_live_', j('pk', '_live_', B62)],
  ['Stripe test key', j('sk', '_test_', B62), 'sk_test_', j('sk', '_test_', 'short')],
  ['Stripe restricted key', j('rk', '_live_', B62), 'rk_live_', 'rk_live_'],
  ['Stripe webhook secret', j('wh', 'sec_', B62), 'whsec_', 'whsec_short'],
  ['AWS access key id', j('AK', 'IA', 'IOSFODNN7EXAMPL2'), 'AKIA', j('ak', 'ia', 'iosfodnn7exampl2')],
  ['AWS temporary key id', j('AS', 'IA', 'IOSFODNN7EXAMPL2'), 'ASIA', j('AS', 'IA', 'IOSFODNN7EXAMPL')],
  ['Google API key', j('AI', 'za', 'SyA-1234567890abcdefghijklmnopqrstu'), 'AIza', j('AI', 'za', 'SyA-1234567890abcdefghijklmnopqrst')],
  ['OpenAI key', j('sk', '-proj-', B62, 'T3BlbkFJ'), 'sk-proj-', 'sk-learn'],
  ['OpenAI legacy key', j('sk', '-', B62, 'T3BlbkFJ0123'), 'sk-', 'see the risk-assessment-2024-report-for-details'],
  ['Anthropic key', j('sk', '-ant-api03-', B62, '-', B62, 'AA'), 'sk-ant-', 'sk-this-is-prose-without-any-digits-at-all'],
  ['Telegram bot token', j('123456789', ':', 'AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0'), '123456789:', 'at 12:30 and 123456789:short'],
  [
    'PEM private key',
    j('-----BEGIN RSA PRIVATE', ' KEY-----\nMIIEowIBAAKCAQEA', B62, '\n-----END RSA PRIVATE KEY-----'),
    '-----BEGIN RSA PRIVATE KEY-----',
    '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A\n-----END PUBLIC KEY-----',
  ],
];

/** The part of a token that must never be stored: all but its kept prefix. */
const core = (token: string, kept: string) => token.slice(kept.length);

test('each format is masked (its prefix kept) and its near-miss stays as written', () => {
  for (const [format, token, kept, nearMiss] of FORMATS) {
    const out = maskCredentials(`before ${token} after`);
    assert.ok(out.startsWith(`before ${kept}${M}`), `${format}: ${out}`);
    assert.ok(!out.includes(core(token, kept).slice(0, 12)), `${format} leaked: ${out}`);
    assert.equal(maskCredentials(`before ${nearMiss} after`), `before ${nearMiss} after`, `${format} near-miss`);
  }
  // The PEM markers stay readable around the masked body.
  assert.ok(maskCredentials(FORMATS.at(-1)![1]).endsWith(`${M}-----END RSA PRIVATE KEY-----`));
});

test('tokens are found wherever a capture keeps text: path, query, header value, JSON, form, text, YAML, SSE', () => {
  for (const [format, token, kept] of FORMATS) {
    // The longest run of letters and digits in the secret part: found as is even in a percent-encoded URL.
    const secret = core(token, kept)
      .split(/[^A-Za-z0-9]/)
      .reduce((a, b) => (b.length > a.length ? b : a))
      .slice(0, 12);
    const encoded = encodeURIComponent(token);
    const carriers: Array<[string, string]> = [
      ['query', masker.url(`https://api.test/x?note=${encoded}&q=1`)],
      ['fragment', masker.url(`https://api.test/x#note=${encoded}`)],
      ['header', JSON.stringify(masker.headers({ 'x-note': `Bearer ${token}` }))],
      ['JSON', masker.body(JSON.stringify({ note: token, list: [`see ${token}`] }), 'application/json')],
      ['cut JSON', masker.body(`{"note": ${JSON.stringify(token)}, "more": "`, 'application/json')],
      ['form', masker.body(new URLSearchParams({ note: token }).toString(), 'application/x-www-form-urlencoded')],
      ['text', masker.body(`log line: sent ${token} to the API`, 'text/plain')],
      ['YAML', masker.body(`config:\n  note: ${token}\n`, 'application/yaml')],
      ['SSE', masker.body(`data: ${JSON.stringify({ note: token })}\n\ndata: ${token}\n\n`, 'text/event-stream')],
    ];
    if (!token.includes('\n')) carriers.push(['path', masker.url(`https://api.test/${token}/send`)]);
    for (const [where, out] of carriers) assert.ok(!out.includes(secret), `${format} in ${where}: ${out}`);
  }
  // Tokens in URL paths: a Telegram bot's method URL and a Slack webhook; the endpoint too (urlFacts).
  const bot = j('/bot', '123456789', ':', 'AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0', '/sendMessage');
  assert.equal(masker.url(`https://api.telegram.org${bot}?chat_id=1`), `https://api.telegram.org/bot123456789:${M}/sendMessage?chat_id=1`);
  assert.equal(
    maskCredentials('/bot/sendMessage and robot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0'),
    '/bot/sendMessage and robot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0',
  );
});

test('masking is idempotent and leaves text without tokens untouched (same string)', () => {
  for (const [, token] of FORMATS) {
    const once = maskCredentials(token);
    assert.equal(maskCredentials(once), once);
  }
  const plain = 'GET /v1/models?limit=20 took 12:30 ms; sk-learn, eyJ, AKIA, -----BEGIN CERTIFICATE-----';
  assert.equal(maskCredentials(plain), plain);
});

/** Steps of one scan per character of input: bounded by a constant whatever the text holds. */
function stepsPerChar(text: string): number {
  const stats: ScanStats = { steps: 0 };
  maskCredentials(text, stats);
  return stats.steps / text.length;
}

test('pathological texts are read in a bounded number of steps per character (linear, counted, not timed)', () => {
  const n = 200_000;
  const fill = (unit: string) => unit.repeat(Math.ceil(n / unit.length));
  const inputs = [
    fill('eyJ.'),
    fill('eyJaaaaaaaaaaaaaaaa.'),
    fill('eyJaaaaaaaaaaaaaaaa..'),
    `eyJ${'a'.repeat(n)}`,
    fill('eyJaaaaaaaaaaaaaaaa.b '),
    fill('sk-'),
    `sk-${'a'.repeat(n)}`,
    fill('sk-aaaaaaaaaaaaaaaaaaaaaa '),
    fill('ghp_'),
    fill('ghp_a'),
    `ghp_${'a'.repeat(n)}`,
    fill('xoxb-'),
    fill('xoxb-a-'),
    fill('AKIA'),
    fill('AIza'),
    fill('AKIAAAAAAAAAAAAAAAAA'),
    fill('1234567:'),
    fill('1234567:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'),
    fill('/bot1234567:'),
    fill('-----BEGIN '),
    fill('-----BEGIN RSA PRIVATE KEY-----'),
    fill('-----BEGIN RSA PRIVATE KEY-----x-----END'),
    fill('-----BEGIN AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'),
    fill('hooks.slack.com/services/'),
    fill('hooks.slack.com%2Fservices%2Fa%2F'),
    fill('%41eyJ'),
    fill('\\neyJ'),
    fill('github_pat_'),
    'e'.repeat(n),
    '1'.repeat(n),
  ];
  for (const text of inputs) {
    const ratio = stepsPerChar(text);
    assert.ok(ratio <= 12, `${JSON.stringify(text.slice(0, 40))}…: ${ratio.toFixed(2)} steps per character`);
  }
  // The same ratio at ten times the length: no term grows with the input.
  for (const unit of ['eyJaaaaaaaaaaaaaaaa.', 'sk-', '1234567:', '-----BEGIN ']) {
    const small = stepsPerChar(unit.repeat(2_000));
    const large = stepsPerChar(unit.repeat(20_000));
    assert.ok(large <= small * 1.05 + 0.01, `${unit}: ${small} then ${large}`);
  }
});
