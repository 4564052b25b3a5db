// Every client and SDK of issue 16, one call each (a retry case for got, ky, openai and Stripe); the marker
// at the end of a line names the call, and the test checks its rows carry this file and that line.
const API = process.env.API_URL;
const PORT = Number(process.env.API_PORT);
const got = require('got').default;
const axios = require('axios');
const nodeFetch = require('node-fetch');
const superagent = require('superagent');
const needle = require('needle');
const undici = require('undici');
const OpenAI = require('openai').default;
const Anthropic = require('@anthropic-ai/sdk').default;
const Stripe = require('stripe');
const { S3Client, PutObjectCommand, GetObjectCommand } = require('@aws-sdk/client-s3');
const { google } = require('googleapis');
const { WebClient } = require('@slack/web-api');
const twilio = require('twilio');
const { Writable } = require('node:stream');

const stripe = new Stripe('sk_test_123', { host: '127.0.0.1', port: PORT, protocol: 'http', telemetry: false, maxNetworkRetries: 1 });
const openai = new OpenAI({ apiKey: 'sk-x', baseURL: API + '/v1', maxRetries: 1 });
const anthropic = new Anthropic({ apiKey: 'sk-ant', baseURL: API, maxRetries: 1 });
const s3 = new S3Client({ region: 'us-east-1', endpoint: API, forcePathStyle: true, credentials: { accessKeyId: 'AKIAX', secretAccessKey: 'secret' } });
const drive = google.drive({ version: 'v3', rootUrl: API + '/', auth: 'key123' });
const slack = new WebClient('xoxb-1', { slackApiUrl: API + '/api/', retryConfig: { retries: 0 } });
const tw = twilio('AC123', 'token');
tw.api.baseUrl = API;

async function main() {
  await got(`${API}/users/got`).json(); // call:got
  await got(`${API}/users/got-retry`, { retry: { limit: 1 } }).json(); // call:got-retry
  // A call the app's own hook makes while got's call is in progress: its own line, not got's.
  await got(`${API}/users/got-hooked`, { hooks: { beforeRequest: [async () => { // call:got-hooked
    await fetch(`${API}/users/in-hook`); // call:in-hook
  }] } }).json();
  await axios.get(`${API}/users/axios`); // call:axios
  await (await nodeFetch(`${API}/users/node-fetch`)).json(); // call:node-fetch
  await superagent.get(`${API}/users/superagent`); // call:superagent
  const { default: ky } = await import('ky');
  await ky.get(`${API}/users/ky`).json(); // call:ky
  await ky.get(`${API}/users/ky-retry`, { retry: { limit: 1, backoffLimit: 1 } }).json(); // call:ky-retry
  await ky(`${API}/users/ky-call-retry`, { retry: { limit: 1, backoffLimit: 1 } }).json(); // call:ky-call-retry
  await needle('get', `${API}/users/needle`); // call:needle
  await (await undici.request(`${API}/users/undici-request`)).body.text(); // call:undici-request
  await (await undici.fetch(`${API}/users/undici-fetch`)).text(); // call:undici-fetch
  await undici.stream(`${API}/users/undici-stream`, { method: 'GET' }, () => new Writable({ write(c, e, cb) { cb(); } })); // call:undici-stream
  await (await fetch(`${API}/users/fetch`)).json(); // call:fetch
  await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }); // call:openai
  const oa2 = new OpenAI({ apiKey: 'sk-x', baseURL: API + '/openai-retry/v1', maxRetries: 1 });
  await oa2.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }); // call:openai-retry
  await anthropic.messages.create({ model: 'claude-x', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }); // call:anthropic
  await stripe.customers.retrieve('cus_123'); // call:stripe
  await stripe.customers.retrieve('cus_retry'); // call:stripe-retry
  await s3.send(new PutObjectCommand({ Bucket: 'bucket', Key: 'k1', Body: 'hello' })); // call:s3-put
  const obj = await s3.send(new GetObjectCommand({ Bucket: 'bucket', Key: 'k1' })); // call:s3-get
  await obj.Body.transformToString();
  const { Octokit } = await import('@octokit/rest');
  const octokit = new Octokit({ baseUrl: API });
  await octokit.rest.repos.get({ owner: 'o', repo: 'r' }); // call:octokit
  await drive.files.list(); // call:googleapis
  await slack.chat.postMessage({ channel: 'C1', text: 'hi' }); // call:slack
  await tw.messages.create({ to: '+15550001', from: '+15550002', body: 'hi' }); // call:twilio
}
main().catch((e) => { console.error('app failed', e); process.exitCode = 1; });
