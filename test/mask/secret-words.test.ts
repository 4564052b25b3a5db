// Masking by words (issue 23, item 7): a name is secret when its words end with a secret word or pair of
// words. Each secret name sits beside a readable near-miss; both go through every place names are read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/config/resolve';
import { nameWords } from '../../src/mask/SecretWords';
import { GraphqlCapture } from '../../src/response/GraphqlCapture';
import { maskStringLiterals } from '../../src/response/graphqlFormat';
import type { ProbeConfig } from '../../src/config/types';

const resolve = (file: ProbeConfig = {}) => resolveConfig({ root: '/app', configFile: null, file, env: {} });
const masker = resolve().masker;
const M = '********';

/** [secret name, readable near-miss]: headers, JSON fields and query parameters of everyday APIs. */
const TABLE: Array<[string, string]> = [
  ['X-Session-Token', 'session_count'],
  ['private-token', 'token_type'],
  ['x-access-token', 'x-ratelimit-remaining-tokens'],
  ['x-refresh-token', 'nextPageToken'],
  ['x-client-secret', 'secretary'],
  ['x-api-token', 'tokenizer'],
  ['x-auth', 'author'],
  ['auth', 'authored_at'],
  ['newPassword', 'password_policy'],
  ['currentPassword', 'passwords_count'],
  ['oldPassword', 'password_changed_at'],
  ['password_confirmation', 'password_length'],
  ['password2', 'password_reset_required'],
  ['apiToken', 'prompt_tokens'],
  ['githubToken', 'max_tokens'],
  ['private_token', 'completion_tokens'],
  ['awsSecretAccessKey', 'AccessKeyId'],
  ['aws_secret_access_key', 'aws_access_key_id'],
  ['webhook_secret', 'secret_name'],
  ['client_secret', 'client_id'],
  ['jwt', 'jwt_expires_in'],
  ['otp', 'otp_enabled'],
  ['pin', 'pinned'],
  ['card_pin', 'pin_code'],
  ['key', 'keyboard'],
  ['api_key', 'api_key_id'],
  ['x-api-key', 'idempotency-key'],
  ['private_key', 'public_key'],
  ['signing_key', 'sort_key'],
  ['secret_key', 'primary_key'],
  ['access_key', 'monkey'],
  ['pass', 'passenger'],
  ['sessionid', 'sessions'],
  ['session', 'session_start'],
  ['jsessionid', 'session_type'],
  ['credential', 'credential_id'],
  ['cookie', 'cookie_consent'],
  ['set-cookie', 'accept'],
  ['authorization', 'authorization_url'],
  ['proxy-authorization', 'authority'],
  ['signature', 'signature_version'],
  ['x-hub-signature-256', 'X-Amz-SignedHeaders'],
  ['x-amz-security-token', 'NextToken'],
  ['csrf_token', 'eos_token'],
  ['oauth2Token', 'total_tokens'],
  ['user.password', 'user.name'],
  ['user[newPassword]', 'user[email]'],
];

test('nameWords: snake_case, camelCase, kebab-case, dots and digit boundaries', () => {
  assert.deepEqual(nameWords('awsSecretAccessKey'), ['aws', 'secret', 'access', 'key']);
  assert.deepEqual(nameWords('X-Session-Token'), ['x', 'session', 'token']);
  assert.deepEqual(nameWords('user.password_confirmation'), ['user', 'password', 'confirmation']);
  assert.deepEqual(nameWords('oauth2Token'), ['oauth', '2', 'token']);
  assert.deepEqual(nameWords('x-hub-signature-256'), ['x', 'hub', 'signature', '256']);
});

test('each secret name is masked and its near-miss stays readable, as a field, a query parameter and a header', () => {
  for (const [secret, readable] of TABLE) {
    assert.ok(masker.isSecretName(secret), `${secret} is secret`);
    assert.ok(!masker.isSecretName(readable), `${readable} stays readable`);
    const body = JSON.parse(masker.body(JSON.stringify({ [secret]: 'v1', [readable]: 'v2' }), 'application/json'));
    assert.deepEqual(body, { [secret]: M, [readable]: 'v2' }, secret);
    const url = new URL(masker.url(`https://api.test/x?${new URLSearchParams({ [secret]: 'v1', [readable]: 'v2' })}`));
    assert.equal(url.searchParams.get(secret), M, secret);
    assert.equal(url.searchParams.get(readable), 'v2', readable);
    if (/^[\w-]+$/.test(secret)) assert.equal(masker.headers({ [secret]: 'v1' })[secret.toLowerCase()], M, `header ${secret}`);
    if (/^[\w-]+$/.test(readable)) assert.equal(masker.headers({ [readable]: 'v2' })[readable.toLowerCase()], 'v2', `header ${readable}`);
  }
});

test('the names of issue 23 are masked with the defaults, in fields, forms, query strings and text', () => {
  const fields = [
    'newPassword',
    'currentPassword',
    'oldPassword',
    'password_confirmation',
    'apiToken',
    'githubToken',
    'awsSecretAccessKey',
    'webhook_secret',
    'jwt',
    'otp',
    'pin',
  ];
  for (const name of fields) {
    assert.equal(masker.form(`${name}=v&q=1`), `${name}=${encodeURIComponent(M)}&q=1`, name);
    assert.equal(masker.text(`{"${name}": "v", "q": 1`), `{"${name}": "${M}", "q": 1`, name);
    assert.equal(masker.text(`${name}: v\nq: 1`), `${name}: ${M}\nq: 1`, `${name} in YAML`);
  }
  assert.equal(
    masker.url('https://maps.test/api?key=k1&pass=p1&auth=a1&sessionid=s1&q=ok'),
    `https://maps.test/api?key=${M}&pass=${M}&auth=${M}&sessionid=${M}&q=ok`,
  );
  const headers = ['X-Session-Token', 'private-token', 'x-access-token', 'x-refresh-token', 'x-client-secret', 'x-api-token', 'x-auth'];
  const masked = masker.headers(Object.fromEntries(headers.map((name) => [name, 'v'])));
  for (const name of headers) assert.equal(masked[name.toLowerCase()], M, name);
});

test('mask.headers false turns the word rule off for that header; mask.inputs still adds whole names', () => {
  const own = resolve({ mask: { headers: { 'x-session-token': false, HttpClientLens: { 'private-token': false } }, inputs: ['next_token'] } });
  assert.equal(own.masker.headers({ 'x-session-token': 'v' })['x-session-token'], 'v');
  assert.equal(own.masker.headers({ 'private-token': 'v' })['private-token'], M);
  assert.equal(own.http!.masker.headers({ 'private-token': 'v' })['private-token'], 'v');
  assert.ok(own.masker.isSecretName('NextToken'), 'a whole name of yours outranks a readable ending');
});

test('GraphQL argument literals with secret names are masked in a JSON payload without GraphqlCapture', () => {
  const query =
    'mutation { login(email: "ada@x.test", password: "hunter2") { token } changePassword(input: {oldPassword: "old-pw", newPassword: """new-pw"""}) }';
  const body = JSON.parse(masker.body(JSON.stringify({ query, variables: { pw: 'v' } }), 'application/json'));
  assert.equal(
    body.query,
    `mutation { login(email: "ada@x.test", password: "${M}") { token } changePassword(input: {oldPassword: "${M}", newPassword: "${M}"}) }`,
  );
  // A variable reference is no literal: left as written.
  assert.equal(masker.text('login(password: $pw)'), 'login(password: $pw)');
  // The same query in JSON text that does not parse (cut at the cap).
  assert.equal(masker.text(`{"query":"mutation { login(password: \\"hunter2\\") }`), `{"query":"mutation { login(password: \\"${M}\\") }`);
});

test('YAML-style lines in text bodies: the value on the line is masked, an auth scheme with it', () => {
  const text = 'user: ada\ntoken: abc123\napi_key: "k-1"\nsecret: \'s-1\'\nAuthorization: Bearer abc.def\nnext_token: cursor-1\nkeyboard: qwerty\n';
  assert.equal(masker.text(text), `user: ada\ntoken: ${M}\napi_key: "${M}"\nsecret: '${M}'\nAuthorization: ${M}\nnext_token: cursor-1\nkeyboard: qwerty\n`);
});

test('GraphqlCapture masks literals under secret words; a document that does not parse has every literal masked, unclosed ones to the end', () => {
  const query = 'mutation { changePassword(oldPassword: "old-pw", newPassword: "new-pw", hint: "kept") { ok } }';
  const out = new GraphqlCapture().capture({
    request: { method: 'POST', url: 'https://api.test/graphql', headers: {}, payload: { query } },
    response: { status: 200, headers: {} },
    body: '{"data":{}}',
    config: { masker },
  });
  assert.match(out.formats!.query!.text, /oldPassword: "\*{8}", newPassword: "\*{8}", hint: "kept"/);
  assert.equal(maskStringLiterals('{ a(x: "1", y: "2\\"3") b(z: "open'), `{ a(x: "${M}", y: "${M}") b(z: "${M}"`);
  const escapedQuotes = `{ a(x: ${'\\"'.repeat(50_000)}`;
  assert.equal(maskStringLiterals(escapedQuotes), `{ a(x: \\"${M}"`);
});
