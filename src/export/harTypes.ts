/** The parts of HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) that Probe writes. */
export interface HarNameValue {
  name: string;
  value: string;
}

export interface HarTimings {
  blocked: number;
  dns: number;
  connect: number;
  send: number;
  wait: number;
  receive: number;
  ssl: number;
  comment?: string;
}

export interface HarEntry {
  pageref: string;
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: HarNameValue[];
    headers: HarNameValue[];
    queryString: HarNameValue[];
    postData?: { mimeType: string; text?: string; params?: HarNameValue[]; comment?: string };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: HarNameValue[];
    headers: HarNameValue[];
    content: { size: number; mimeType: string; text?: string; encoding?: 'base64'; comment?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
    comment?: string;
  };
  cache: Record<string, never>;
  timings: HarTimings;
  serverIPAddress?: string;
  connection?: string;
  comment?: string;
  /** Custom fields (HAR allows names starting with `_`): Chromium's own for a failed call, and Probe's. */
  _error?: string;
  _probe?: Record<string, unknown>;
}

export interface Har {
  log: {
    version: '1.2';
    creator: { name: string; version: string };
    pages: Array<{ startedDateTime: string; id: string; title: string; pageTimings: { onContentLoad: number; onLoad: number }; comment?: string }>;
    entries: HarEntry[];
    comment?: string;
  };
}
