// End to end (issue 23, item 7): an app under --require probe/register sends and receives secrets under
// everyday names and in credential formats (headers, query, path, JSON, form, text and event-stream bodies;
// fetch and node:http), with and without `bodies`. No stored file and no HAR export holds one in clear.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { TestApp } from '../helpers/app';
import type { HttpRow } from '../../src/capture/types';

// Tokens are joined at run time so that this file holds none whole.
const j = (...parts: string[]) => parts.join('');
const B62 = 'aB3dE5gH7jK9mN1pQ2sT4vW6yZ8cF0hJ';
const TOKENS = {
  jwt: j('eyJ', 'hbGciOiJIUzI1NiJ9.', 'eyJzdWIiOiJRWEpXVDEyMyJ9.', 'QmVhcmVyU2lnbmF0dXJlMDEyMzQ1Njc4OQ'),
  github: j('gh', 'p_', 'Gh0Gh1Gh2Gh3Gh4Gh5Gh6Gh7Gh8Gh9GhAGhBG'),
  slack: j('xo', 'xb-', '111122223333-444455556666-', 'SlackSlackSlack0123456789'),
  slackHook: j('https://hooks.', 'slack.com/services/', 'T01HOOKID/B02HOOKID/', 'HookHookHookHook01234567'),
  stripe: j('sk', '_live_', 'StripeStripe0123456789Stripe'),
  whsec: j('wh', 'sec_', 'WebhookWebhook0123456789Webhook'),
  aws: j('AK', 'IA', 'AWSKEYID0123456Z'),
  google: j('AI', 'za', 'SyGoogleGoogle0123456789GoogleGoogl'),
  openai: j('sk', '-proj-', 'OpenAIOpenAI0123456789OpenAIOpenAI'),
  anthropic: j('sk', '-ant-api03-', 'AnthropicAnthropic0123456789Anthropic-AA'),
  telegram: j('987654321', ':', 'AATelegramTelegram0123456789Telegra'),
  pem: j('-----BEGIN EC PRIVATE', ' KEY-----\nMHcCAQEEIPemPemPemPem0123456789PemPemPem\n-----END EC PRIVATE KEY-----'),
};
/** What must never be stored of each token: its letters past the kept prefix. */
const CORES = [
  'zdWIiOiJRWEpX',
  'QmVhcmVyU2ln',
  'Gh0Gh1Gh2Gh3',
  'SlackSlackSlack',
  'HookHookHook',
  'StripeStripe',
  'WebhookWebhook',
  'AWSKEYID0123456Z',
  'SyGoogleGoogle',
  'OpenAIOpenAI',
  'AnthropicAnthropic',
  'AATelegramTelegram',
  'PemPemPem',
];

function serve(req: http.IncomingMessage, res: http.ServerResponse): void {
  req.resume();
  req.on('end', () => {
    const route = new URL(req.url ?? '/', 'http://x').pathname;
    const headers = { 'x-refresh-token': 'SEKRIT-response-header', link: '<https://api.test/next?access_token=SEKRIT-link>; rel="next"' };
    if (route === '/json') {
      const body = { access: TOKENS.jwt, githubToken: 'SEKRIT-r1', slack: TOKENS.slack, usage: { prompt_tokens: 12, max_tokens: 30 }, token_type: 'bearer' };
      return void res.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify(body));
    }
    if (route === '/text') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(`token: SEKRIT-r2\nkey sent: ${TOKENS.anthropic}\n`);
    if (route === '/sse') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return void res.end(`data: ${JSON.stringify({ otp: 'SEKRIT-r3', hook: TOKENS.whsec })}\n\ndata: ${TOKENS.openai}\n\n`);
    }
    res.writeHead(200, { ...headers, 'content-type': 'application/octet-stream' }).end('ok');
  });
}

const APP = `
const http = require('node:http');
const U = process.env.UPSTREAM;
const T = JSON.parse(process.env.TOKENS);
function viaHttp(method, path, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(U + path, { method, headers }, (res) => { res.resume(); res.on('end', resolve); });
    req.on('error', reject);
    req.end(body);
  });
}
(async () => {
  const read = (res) => res.text();
  await fetch(U + '/headers', { headers: {
    'X-Session-Token': 'SEKRIT-h1', 'private-token': 'SEKRIT-h2', 'x-access-token': 'SEKRIT-h3', 'x-refresh-token': 'SEKRIT-h4',
    'x-client-secret': 'SEKRIT-h5', 'x-api-token': 'SEKRIT-h6', 'x-auth': 'SEKRIT-h7', 'x-note': 'Bearer ' + T.jwt,
  } }).then(read);
  await fetch(U + '/maps?key=' + T.google + '&pass=SEKRIT-q2&auth=SEKRIT-q3&sessionid=SEKRIT-q4&q=ok').then(read);
  await fetch(U + '/bot' + T.telegram + '/sendMessage?chat_id=1').then(read);
  await fetch(U + '/notify?' + new URLSearchParams({ url: T.slackHook })).then(read);
  await fetch(U + '/json', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({
    newPassword: 'SEKRIT-f1', currentPassword: 'SEKRIT-f2', oldPassword: 'SEKRIT-f3', password_confirmation: 'SEKRIT-f4',
    apiToken: 'SEKRIT-f5', githubToken: 'SEKRIT-f6', awsSecretAccessKey: 'SEKRIT-f7', webhook_secret: 'SEKRIT-f8',
    jwt: 'SEKRIT-f9', otp: 'SEKRIT-f10', pin: 'SEKRIT-f11', note: T.github, aws: T.aws, stripe: T.stripe,
    query: 'mutation { login(email: "ada@x.test", password: "SEKRIT-gql") { id } }',
    max_tokens: 30,
  }) }).then(read);
  await viaHttp('POST', '/form', { 'content-type': 'application/x-www-form-urlencoded', 'x-auth': 'SEKRIT-h8' },
    new URLSearchParams({ currentPassword: 'SEKRIT-form1', apiToken: 'SEKRIT-form2', note: T.stripe, user: 'ada' }).toString());
  await fetch(U + '/text', { method: 'POST', headers: { 'content-type': 'text/plain' },
    body: 'token: SEKRIT-y1\\npassword: "SEKRIT-y2"\\nnote: ' + T.openai + '\\nprivate_key: |\\n' + T.pem + '\\n' }).then(read);
  await fetch(U + '/sse').then(read);
  await viaHttp('GET', '/bot' + T.telegram + '/getMe', { 'x-api-token': 'SEKRIT-h9' });
  console.log('done');
})().catch((e) => { console.error('app failed', e); process.exitCode = 1; });
`;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

function leaksIn(text: string): string[] {
  return [...(text.match(/SEKRIT-[\w-]+/g) ?? []), ...CORES.filter((core) => text.includes(core))];
}

describe('everyday secret names and credential formats never reach the store or the HAR export', () => {
  let server: http.Server;
  let upstream: string;
  before(async () => {
    server = http.createServer(serve);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    upstream = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  for (const bodies of [false, true]) {
    it(`bodies: ${bodies}`, async () => {
      const app = new TestApp({ 'app.js': APP, 'probe.config.js': `module.exports = { lenses: { HttpClientLens: { bodies: ${bodies} } } };` });
      const result = await app.run('app.js', { env: { UPSTREAM: upstream, TOKENS: JSON.stringify(TOKENS) }, timeout: 60_000 });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout.trim(), 'done');

      const rows = (app.captures().find((c) => c.type === 'command')?.sections.http ?? []) as HttpRow[];
      assert.equal(rows.length, 9);
      // Readable names stay readable: masking by words is not masking by fragments.
      const json = rows.find((row) => row.url.endsWith('/json'))!;
      assert.equal((json.request_payload as Record<string, unknown>).max_tokens, 30);
      assert.deepEqual((json.response_capture!.cards as Record<string, unknown>).usage, { prompt_tokens: 12, max_tokens: 30 });
      assert.equal((json.response_capture!.cards as Record<string, unknown>).token_type, 'bearer');
      assert.match(rows.find((row) => row.url.includes('/maps'))!.url, /\?key=\*{8}&pass=\*{8}&auth=\*{8}&sessionid=\*{8}&q=ok$/);
      const bot = rows.find((row) => row.url.includes('/sendMessage'))!;
      assert.equal(bot.endpoint, `GET ${upstream}/bot987654321:********/sendMessage`);
      if (bodies) assert.match(rows.find((row) => row.url.endsWith('/text'))!.request_body!, /^token: \*{8}\npassword: "\*{8}"\nnote: sk-proj-\*{8}\n/);

      const leaks = filesUnder(path.join(app.dir, '.probe')).flatMap((file) => leaksIn(readFileSync(file, 'latin1')).map((leak) => `${file}: ${leak}`));
      assert.deepEqual(leaks, [], 'no stored file holds a secret');
      const har = await app.cli(['export', '--har']);
      assert.equal(har.code, 0, har.stderr);
      assert.equal(JSON.parse(har.stdout).log.entries.length, 9);
      assert.deepEqual(leaksIn(har.stdout), [], 'nor does the HAR export');
    });
  }
});
