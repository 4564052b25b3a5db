// The whole-name rule of mask.inputs (SPEC 4): names match in any case and case style, never as substrings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SecretNames } from '../../src/mask/SecretNames';
import { nameKey } from '../../src/mask/nameKey';
import { resolveConfig } from '../../src/config/resolve';
import { ProbeConfigError } from '../../src/config/ProbeConfigError';
import type { ProbeConfig } from '../../src/config/types';

const resolve = (file: ProbeConfig = {}) => resolveConfig({ root: '/app', configFile: null, file, env: {} });
const defaults = resolve().masker;

test('nameKey: every case style gives the same words', () => {
  const forms: Array<[string, string]> = [
    ['api_key', 'api_key'],
    ['apiKey', 'api_key'],
    ['ApiKey', 'api_key'],
    ['api-key', 'api_key'],
    ['API_KEY', 'api_key'],
    ['API-KEY', 'api_key'],
    ['APIKey', 'api_key'],
    ['apiKEY', 'api_key'],
    ['Api_Key', 'api_key'],
    ['api key', 'api_key'],
    ['__api__key__', 'api_key'],
    ['apikey', 'apikey'],
    ['X-Amz-Signature', 'x_amz_signature'],
    ['SecretAccessKey', 'secret_access_key'],
    ['oauth2Token', 'oauth2_token'],
    ['XMLHttpRequest', 'xml_http_request'],
    ['prompt_tokens', 'prompt_tokens'],
    ['', ''],
    ['Ünï_Côde', 'ünï_côde'],
  ];
  for (const [name, key] of forms) assert.equal(nameKey(name), key, name);
});

test('defaults: every case form of every default name is masked', () => {
  const names = [
    'password',
    'passwd',
    'pwd',
    'secret',
    'token',
    'access_token',
    'refresh_token',
    'id_token',
    'api_key',
    'apikey',
    'client_secret',
    'private_key',
    'authorization',
    'credit_card',
    'card_number',
    'cvv',
    'license_key',
    'signature',
    'sig',
    'x-amz-signature',
    'x-amz-credential',
    'x-amz-security-token',
    'session_token',
    'secret_access_key',
  ];
  const styles = (name: string) => {
    const words = name.split(/[_-]/);
    const camel =
      words[0] +
      words
        .slice(1)
        .map((w) => w[0]!.toUpperCase() + w.slice(1))
        .join('');
    return [name, name.toUpperCase(), words.join('-'), words.join('_'), camel, camel[0]!.toUpperCase() + camel.slice(1), words.join('-').toUpperCase()];
  };
  for (const name of names) for (const form of styles(name)) assert.ok(defaults.isSecretName(form), form);
  // What SDKs send: AWS presigned queries, STS/Cognito/container credentials, Azure SAS, Stripe forms, New Relic.
  for (const name of [
    'X-Amz-Signature',
    'X-Amz-Credential',
    'X-Amz-Security-Token',
    'SessionToken',
    'SecretAccessKey',
    'SecretKey',
    'Token',
    'sig',
    'card[number]',
    'card[cvc]',
    'user[password]',
    'license_key',
    'apiKey',
    'Authorization',
  ]) {
    assert.ok(defaults.isSecretName(name), name);
  }
});

test('defaults: names that only contain a secret word stay visible', () => {
  const visible = [
    'prompt_tokens',
    'completion_tokens',
    'total_tokens',
    'max_tokens',
    'max_completion_tokens',
    'tokenizer',
    'tokens',
    'input_tokens',
    'output_tokens',
    'cache_read_input_tokens',
    'cache_creation_input_tokens',
    'reasoning_tokens',
    'NextToken',
    'nextPageToken',
    'token_type',
    'expires_in',
    'secretary',
    'passwords_count',
    'signed',
    'signature_version',
    'design',
    'AccessKeyId',
    'card[exp_month]',
    'keyword',
    'monkey',
    'authority',
    'sigma',
    'q',
    'page',
  ];
  for (const name of visible) assert.ok(!defaults.isSecretName(name), name);
});

test('a user plain name follows the whole-name rule; a RegExp or regex string is matched as given', () => {
  const masker = resolve({ mask: { inputs: ['githubToken', /^X-Custom-/, '^zip$', { HttpClientLens: ['ssn'] }] } }).masker;
  for (const name of ['github_token', 'GITHUB-TOKEN', 'GithubToken']) assert.ok(masker.isSecretName(name), name);
  assert.ok(!masker.isSecretName('github_tokens'));
  assert.ok(masker.isSecretName('X-Custom-Thing'));
  assert.ok(!masker.isSecretName('x-custom-thing'), 'a RegExp keeps its own case rule and sees the name unnormalised');
  assert.ok(!masker.isSecretName('x_custom_thing'));
  assert.ok(masker.isSecretName('ZIP') && !masker.isSecretName('zip_code'), 'a regex string is case-insensitive and as anchored as written');
  assert.ok(!masker.isSecretName('ssn') && resolve({ mask: { inputs: { HttpClientLens: ['ssn'] } } }).http!.masker.isSecretName('SSN'));
});

test('a bad entry names its own place in mask.inputs', () => {
  for (const [inputs, setting] of [
    [['ok', '(unclosed'], 'mask.inputs[1]'],
    [[42], 'mask.inputs[0]'],
    [{ HttpClientLens: [''] }, 'mask.inputs.HttpClientLens[0]'],
  ] as const) {
    assert.throws(
      () => resolve({ mask: { inputs: inputs as never } }),
      (error: unknown) => error instanceof ProbeConfigError && error.setting === setting,
    );
  }
});

test('a global RegExp flag does not make the answer depend on the last call', () => {
  const names = new SecretNames([], [/pin/g]);
  assert.ok(names.has('pin'));
  assert.ok(names.has('a_pin'));
});
