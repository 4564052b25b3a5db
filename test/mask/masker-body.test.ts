// Bodies under the default rules: secrets masked wherever they sit, the look-alikes kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/config/resolve';

const masker = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} }).masker;

test('JSON: authorization and credentials are masked at any depth, in any case style', () => {
  const body = {
    request: { headers: { Authorization: 'Bearer abc', 'X-Amz-Security-Token': 'FwoG' } },
    calls: [{ authorization: 'Basic xyz', apiKey: 'k1' }, { nested: [{ API_KEY: 'k2', 'client-secret': 'cs' }] }],
    Credentials: { AccessKeyId: 'ASIA1', SecretAccessKey: 'sk', SessionToken: 'st', Expiration: '2030-01-01' },
    usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, completion_tokens_details: { reasoning_tokens: 0 } },
    max_tokens: 5,
  };
  const masked = JSON.parse(masker.body(JSON.stringify(body), 'application/json'));
  assert.deepEqual(masked, {
    request: { headers: { Authorization: '********', 'X-Amz-Security-Token': '********' } },
    calls: [{ authorization: '********', apiKey: '********' }, { nested: [{ API_KEY: '********', 'client-secret': '********' }] }],
    Credentials: { AccessKeyId: 'ASIA1', SecretAccessKey: '********', SessionToken: '********', Expiration: '2030-01-01' },
    usage: body.usage,
    max_tokens: 5,
  });
});

test('forms: bracketed names match by their whole path or last part', () => {
  const form = 'type=card&card%5Bnumber%5D=4242424242424242&card%5Bcvc%5D=314&card%5Bexp_month%5D=12&user%5Bpassword%5D=p&metadata%5Btokens%5D=3';
  const fields = new URLSearchParams(masker.body(form, 'application/x-www-form-urlencoded'));
  assert.deepEqual(Object.fromEntries(fields), {
    type: 'card',
    'card[number]': '********',
    'card[cvc]': '********',
    'card[exp_month]': '12',
    'user[password]': '********',
    'metadata[tokens]': '3',
  });
});
