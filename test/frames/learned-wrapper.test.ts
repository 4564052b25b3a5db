import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { runChild } from '../helpers/child';
import { cleanEnv, installPinned, pinsKey } from '../helpers/pinned';
import { httpRows, oracles } from './run';

/**
 * A learned library reached through another package: the S3 SDK's multipart upload (`@aws-sdk/lib-storage`'s
 * Upload, in no list of Probe's) sends CreateMultipartUpload through a promise it keeps and returns un-awaited, so
 * that call's stack holds the SDK's middleware alone, and what it teaches (`@aws-sdk/core`) runs no method while the
 * app's frame is linked. The upload's other calls, whose stacks reach the app through lib-storage, teach the wrapper:
 * the second run's CreateMultipartUpload has the app's line. Probe from its packed tarball; the oracle is the line an
 * Error made at the `upload.done()` call points to; a loopback stand-in for S3.
 */
const CACHE = process.env.PROBE_ORIGIN_CACHE ?? path.join(os.homedir(), '.cache', 'probe-origin');
const PINS = { '@aws-sdk/client-s3': '3.1175.0', '@aws-sdk/lib-storage': '3.1175.0' };
const LEARNED = 'learned-hops.json';

const APP = `
const { S3Client, PutObjectCommand } = require('@aws-sdk/client-s3');
const { Upload } = require('@aws-sdk/lib-storage');
const s3 = new S3Client({ region: 'us-east-1', endpoint: process.env.API_URL, forcePathStyle: true, credentials: { accessKeyId: 'AKIAX', secretAccessKey: 'secret' } });
const oracle = (name, error) => console.log('ORACLE ' + name + ' ' + error.stack.split('\\n')[1].trim());
(async () => {
  oracle('put', new Error()); await s3.send(new PutObjectCommand({ Bucket: 'bucket', Key: 'small', Body: 'hello' }));
  // Three parts of 5 MiB at most, sent four at a time (the default queue).
  const upload = new Upload({ client: s3, params: { Bucket: 'bucket', Key: 'big', Body: Buffer.alloc(11 * 1024 * 1024, 1) } });
  oracle('upload', new Error()); const done = await upload.done();
  console.log('uploaded ' + done.ETag);
})();
`;

/** S3's multipart API as far as the upload needs it: create, parts, complete; a plain PUT. */
function s3Stub(): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://s3');
      const xml = (body: string) => {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(`<?xml version="1.0" encoding="UTF-8"?>${body}`);
      };
      if (req.method === 'POST' && url.searchParams.has('uploads'))
        return xml('<InitiateMultipartUploadResult><Bucket>bucket</Bucket><Key>big</Key><UploadId>up1</UploadId></InitiateMultipartUploadResult>');
      if (req.method === 'POST' && url.searchParams.has('uploadId'))
        return xml('<CompleteMultipartUploadResult><Bucket>bucket</Bucket><Key>big</Key><ETag>"whole"</ETag></CompleteMultipartUploadResult>');
      res.writeHead(200, { etag: `"${url.searchParams.get('partNumber') ?? 'small'}"` });
      res.end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Each S3 operation's rows as `operation origin`, in order. */
function operations(app: string): string[] {
  return httpRows(app).map((row) => {
    const url = new URL(row.url);
    const operation = url.searchParams.has('uploads')
      ? 'CreateMultipartUpload'
      : url.searchParams.has('partNumber')
        ? 'UploadPart'
        : url.searchParams.has('uploadId')
          ? 'CompleteMultipartUpload'
          : 'PutObject';
    return `${operation} ${row.origin ? `${row.origin.file}:${row.origin.line}` : 'null'}`;
  });
}

describe('origin: a learned library reached through a wrapper (S3 multipart upload, Probe from its tarball)', { timeout: 900_000 }, () => {
  let app = '';
  let server: http.Server;
  before(async () => {
    app = await installPinned({ dir: path.join(CACHE, `s3-upload-${pinsKey(PINS)}`), package: { name: 's3-upload', dependencies: PINS }, probe: true });
    fs.writeFileSync(path.join(app, 'upload.cjs'), APP);
    fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
    server = await s3Stub();
  });
  after(() => {
    server?.closeAllConnections();
    server?.close();
  });

  async function run() {
    fs.rmSync(path.join(app, '.probe', 'captures'), { recursive: true, force: true });
    const env = { ...cleanEnv(), NODE_OPTIONS: '--require probe/register', API_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    const result = await runChild(process.execPath, ['upload.cjs'], { cwd: app, env });
    assert.equal(result.code, 0, `the app failed:\n${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /^uploaded "whole"$/m);
    return { rows: operations(app), expected: oracles(result.stdout, app) };
  }

  it("the first run learns lib-storage from the upload's later calls; the second run's CreateMultipartUpload has the app's line", async () => {
    const one = await run();
    const upload = one.expected.get('upload');
    const put = one.expected.get('put');
    assert.ok(upload && put, 'the app printed its oracles');
    // The first run: the call that hopped has no line yet; the ones whose stack reach the app have it.
    assert.deepEqual(one.rows, [
      `PutObject ${put}`,
      'CreateMultipartUpload null',
      `UploadPart ${upload}`,
      `UploadPart ${upload}`,
      `UploadPart ${upload}`,
      `CompleteMultipartUpload ${upload}`,
    ]);
    const learned = (JSON.parse(fs.readFileSync(path.join(app, '.probe', LEARNED), 'utf8')) as { packages: Array<{ name: string }> }).packages.map(
      (p) => p.name,
    );
    assert.ok(learned.includes('@aws-sdk/lib-storage'), `learned: ${learned.join(', ')}`);

    const two = await run();
    assert.deepEqual(two.rows, [
      `PutObject ${put}`,
      `CreateMultipartUpload ${upload}`,
      `UploadPart ${upload}`,
      `UploadPart ${upload}`,
      `UploadPart ${upload}`,
      `CompleteMultipartUpload ${upload}`,
    ]);
  });
});
