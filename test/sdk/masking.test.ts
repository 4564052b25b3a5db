// Masking defaults against what real SDKs send and receive: openai (usage counts and max_tokens stay readable),
// @aws-sdk/client-s3 with temporary credentials from the container credentials endpoint (the default chain) and
// a presigned URL from @aws-sdk/s3-request-presigner, stripe (a card in a form body, a client_secret in the
// answer). The SDKs are installed at pinned versions into a cache outside the repository (test/sdk/install.ts)
// and run against one loopback stand-in.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Capture, HttpRow } from '../../src/capture/types';
import { readableCapture } from '../../src/capture/readableCapture';
import { cleanEnv } from '../compat/install';
import { runChild } from '../helpers/child';
import { installSdkApp } from './install';

const SESSION_TOKEN = 'IQoJb3JpZ2luX2VjEXAMPLE-SESSION-TOKEN';
const SECRET_ACCESS_KEY = 'wJalrXUtnFEMIEXAMPLESECRETKEY';
const OPENAI_KEY = 'sk-proj-LiveSecretKey1234567890';
const STRIPE_KEY = 'sk_test_51HxYzSecretKey1234';

const APP = `
const { S3Client, PutObjectCommand, GetObjectCommand } = require('@aws-sdk/client-s3');
const { getSignedUrl } = require('@aws-sdk/s3-request-presigner');
const OpenAI = require('openai');
const Stripe = require('stripe');
const STUB = process.env.STUB;
(async () => {
  const openai = new OpenAI({ apiKey: '${OPENAI_KEY}', baseURL: STUB + '/v1', maxRetries: 0 });
  await openai.chat.completions.create({ model: 'gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
  // No credentials given: the default chain fetches temporary ones from AWS_CONTAINER_CREDENTIALS_FULL_URI.
  const s3 = new S3Client({ region: 'us-east-1', endpoint: STUB, forcePathStyle: true });
  await s3.send(new PutObjectCommand({ Bucket: 'b', Key: 'k.json', Body: '{"a":1}', ContentType: 'application/json' }));
  const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'b', Key: 'k.json' }), { expiresIn: 60 });
  await (await fetch(url)).text();
  const stripe = new Stripe('${STRIPE_KEY}', { host: '127.0.0.1', port: Number(new URL(STUB).port), protocol: 'http', maxNetworkRetries: 0, telemetry: false });
  await stripe.paymentMethods.create({ type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '314' } });
  await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' });
})().catch((e) => { console.error('app failed', e); process.exitCode = 1; });
`;

const DEPENDENCIES = { openai: '6.49.0', '@aws-sdk/client-s3': '3.1169.0', '@aws-sdk/s3-request-presigner': '3.1163.0', stripe: '23.1.0' };

function json(res: http.ServerResponse, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** OpenAI, S3 (path style), Stripe and the container credentials endpoint on one loopback server. */
function startStub(): Promise<http.Server> {
  const objects = new Map<string, Buffer>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://stub');
      const body = Buffer.concat(chunks);
      if (url.pathname === '/creds') {
        return json(res, {
          AccessKeyId: 'ASIAEXAMPLETEMPKEY',
          SecretAccessKey: SECRET_ACCESS_KEY,
          Token: SESSION_TOKEN,
          Expiration: new Date(Date.now() + 3_600_000).toISOString(),
        });
      }
      if (url.pathname === '/v1/chat/completions') {
        return json(res, {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: 'gpt-4o-mini',
          choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18, prompt_tokens_details: { cached_tokens: 0 } },
        });
      }
      if (url.pathname === '/v1/payment_methods')
        return json(res, { id: 'pm_1', object: 'payment_method', type: 'card', card: { brand: 'visa', last4: '4242', exp_month: 12 } });
      if (url.pathname === '/v1/payment_intents')
        return json(res, { id: 'pi_1', object: 'payment_intent', amount: 2000, currency: 'usd', client_secret: 'pi_1_secret_XYZ' });
      if (url.pathname.startsWith('/b/')) {
        if (req.method === 'PUT') {
          objects.set(url.pathname, body);
          res.writeHead(200, { etag: `"${createHash('md5').update(body).digest('hex')}"`, 'content-length': 0 });
          return res.end();
        }
        const data = objects.get(url.pathname) ?? Buffer.alloc(0);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': data.length });
        return res.end(data);
      }
      res.writeHead(404, { 'content-length': 0 });
      res.end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function captures(app: string): Capture[] {
  const dir = path.join(app, '.probe', 'captures');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => readableCapture((JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as { capture: Capture }).capture));
}

describe('masking defaults with real SDK payloads', () => {
  let stub: http.Server;
  let rows: HttpRow[] = [];
  let stored = '';

  before(async () => {
    stub = await startStub();
    const app = await installSdkApp('masking', DEPENDENCIES, { 'app.cjs': APP });
    const base = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
    const env = {
      ...cleanEnv(),
      NODE_OPTIONS: '--require probe/register',
      STUB: base,
      AWS_CONTAINER_CREDENTIALS_FULL_URI: `${base}/creds`,
      AWS_CONTAINER_AUTHORIZATION_TOKEN: 'container-auth-token-value',
      AWS_CONFIG_FILE: path.join(app, 'no-aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(app, 'no-aws-credentials'),
      AWS_EC2_METADATA_DISABLED: 'true',
    };
    for (const name of Object.keys(env))
      if (/^AWS_(ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN|PROFILE|WEB_IDENTITY_TOKEN_FILE|ROLE_ARN)$/.test(name)) delete env[name as keyof typeof env];
    // Asynchronous: the stub answers in this process.
    const result = await runChild(process.execPath, ['app.cjs'], { cwd: app, env });
    assert.equal(result.code, 0, result.stderr);
    const all = captures(app);
    rows = all.flatMap((c) => (c.sections.http as HttpRow[] | undefined) ?? []);
    stored = JSON.stringify(all);
  });
  after(() => new Promise<void>((resolve) => stub.close(() => resolve())));

  const row = (method: string, pathname: string, query?: string) => {
    const found = rows.find((r) => r.method === method && new URL(r.url).pathname === pathname && (!query || r.url.includes(query)));
    assert.ok(found, `a row for ${method} ${pathname} (rows: ${rows.map((r) => `${r.method} ${r.url}`).join(', ')})`);
    return found;
  };

  it('stores no credential anywhere in the captures', () => {
    for (const secret of [SESSION_TOKEN, SECRET_ACCESS_KEY, OPENAI_KEY, STRIPE_KEY, 'container-auth-token-value', '4242424242424242', 'pi_1_secret_XYZ']) {
      assert.ok(!stored.includes(secret), `${secret} is stored`);
    }
    assert.doesNotMatch(stored, /Signature=[0-9a-f]{8}|Credential=ASIA/, 'a SigV4 signature or credential scope is stored');
  });

  it('OpenAI: max_tokens and the usage counts stay readable, the key is masked', () => {
    const chat = row('POST', '/v1/chat/completions');
    assert.equal((chat.request_payload as Record<string, unknown>).max_tokens, 50);
    const cards = chat.response_capture!.cards as { usage: Record<string, unknown> };
    assert.deepEqual(cards.usage, { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18, prompt_tokens_details: { cached_tokens: 0 } });
    assert.equal(chat.request_headers.authorization, '********');
  });

  it('AWS: the temporary credentials, the session token header and the presigned query are masked', () => {
    const creds = row('GET', '/creds');
    const body = creds.response_capture!.cards as Record<string, unknown>;
    assert.deepEqual([body.SecretAccessKey, body.Token, body.AccessKeyId], ['********', '********', 'ASIAEXAMPLETEMPKEY']);
    assert.equal(creds.request_headers.authorization, '********');
    const put = row('PUT', '/b/k.json');
    assert.equal(put.request_headers['x-amz-security-token'], '********');
    assert.equal(put.request_headers.authorization, '********');
    const get = row('GET', '/b/k.json', 'X-Amz-');
    const query = new URL(get.url).searchParams;
    for (const name of ['X-Amz-Signature', 'X-Amz-Credential', 'X-Amz-Security-Token']) assert.equal(query.get(name), '********', name);
    assert.equal(query.get('X-Amz-Expires'), '60', 'what is not a credential stays');
    assert.equal(get.endpoint, `GET ${new URL(get.url).origin}/b/k.json`);
  });

  it('Stripe: the card number and cvc in the form are masked, the rest of the form and answer readable', () => {
    const pm = row('POST', '/v1/payment_methods');
    const form = pm.request_payload as Record<string, unknown>;
    assert.equal(form['card[number]'], '********');
    assert.equal(form['card[cvc]'], '********');
    assert.equal(form['card[exp_month]'], '12');
    assert.equal(form.type, 'card');
    assert.equal((pm.response_capture!.cards as { card: { last4: string } }).card.last4, '4242');
    assert.equal(pm.request_headers.authorization, '********');
    const pi = row('POST', '/v1/payment_intents');
    assert.equal((pi.response_capture!.cards as Record<string, unknown>).client_secret, '********');
    assert.equal((pi.request_payload as Record<string, unknown>).amount, '2000');
  });
});
