import { searchCalls } from './callSearch';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Store } from '../capture/Store';
import type { Logger } from '../util/logger';
import { isValidCaptureId } from '../capture/indexRow';
import { ASSETS_DIR, readAsset } from './assets';
import { isAllowedHost, tokenCookie, tokenMatches, tokenOf } from './guard';
import { sendJson, sendText, setSecurityHeaders } from './headers';
import { IndexWatcher } from './IndexWatcher';
import { pageHtml } from './page';
import { harOf } from '../export/har';
import { captureMocks, captureSource, mockText } from '../export/mockText';
import { MOCK_FILES, isMockFormat } from '../export/mockFiles';
import { packageVersion } from '../util/packageVersion';
import { newAccessToken } from '../util/accessToken';
import { isLoopbackHost, isWildcardHost, shownHost } from '../util/listenAddress';
import type { FindingSettings } from '../findings/Finding';
import { ThreadedFindings } from '../query/ThreadedFindings';
import { FindingCounts } from './findingCounts';
import { shownFindings } from '../findings/floor';
import { BaselineStore } from '../baselines/BaselineStore';
import { compareTarget } from '../query/diff';
import { QueryError } from '../query/QueryError';
import { diffCaptures } from '../diff/diffCaptures';
import { withStoreEndpoints } from '../query/storeEndpoints';
import type { ResolvedConfig } from '../config/types';
import { snapshotStatusOf } from '../snapshots/captureStatus';

export interface DashboardOptions {
  store: Store;
  /** Interface to bind; 127.0.0.1 unless the user asks otherwise. */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /**
   * When set, every request must carry it (query once, then the cookie; or a header). Beyond loopback one is
   * always required: a random one is made when none is given.
   */
  token?: string | null;
  /** Shown in the page header. */
  info?: { service: string; driver: string; root: string; editor?: string | null };
  /** How often the store index is polled for live updates, in ms. */
  pollMs?: number;
  assetsDir?: string;
  logger?: Logger;
  /** Settings of the findings shown on a capture. */
  findings?: FindingSettings;
  /** The app root, whose `.probe/baselines` the "Compare with…" view offers. */
  root?: string;
  /** `snapshots` settings: with `root`, a test capture's page says whether it matches its snapshot. */
  snapshots?: ResolvedConfig['snapshots'];
}

export interface RunningDashboard {
  /** `http://host:port/` as another machine would reach it, with `?token=` when a token is required. */
  url: string;
  /** The bound host. */
  host: string;
  /** Bound to 0.0.0.0 or `::`: every interface of the machine. */
  allInterfaces: boolean;
  port: number;
  close(): Promise<void>;
}

const SSE_KEEPALIVE_MS = 15_000;
const HAR_SUFFIX = '/har';
/** `/api/captures/<id>/mocks/<format>`: the same file `probe export <id> --<format>` writes. */
const MOCKS_PATH = /^\/api\/captures\/([^/]+)\/mocks\/([^/]+)$/;
/** `/api/captures/<id>/findings` and `/api/captures/<id>/compare?to=previous|baseline:<name>|<id>`. */
const READING_PATH = /^\/api\/captures\/([^/]+)\/(findings|compare|snapshot)$/;

/** Starts the local dashboard server: the page, its built assets, and a read-only JSON API over the store. */
export async function startDashboard(options: DashboardOptions): Promise<RunningDashboard> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token || (isLoopbackHost(host) ? null : newAccessToken());
  const shown = shownHost(host);
  const assetsDir = options.assetsDir ?? ASSETS_DIR;
  const watcher = new IndexWatcher(options.store, options.pollMs ?? 1000, options.logger);
  const streams = new Set<ServerResponse>();
  // Off this event loop: a long capture's findings take seconds, and every other request would wait for them.
  const findings = new ThreadedFindings(options.store, options.findings);
  const findingCounts = new FindingCounts(options.store, findings);
  const baselines = options.root !== undefined ? new BaselineStore(options.root) : null;
  let port = 0;

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    setSecurityHeaders(response);
    if (!isAllowedHost(request.headers.host, host, port, shown)) return sendText(response, 403, 'probe dashboard: Host header not allowed\n');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('Allow', 'GET, HEAD');
      return sendText(response, 405, 'probe dashboard: read-only\n');
    }
    const url = new URL(request.url ?? '/', 'http://dashboard.invalid');
    if (token) {
      const given = url.searchParams.get('token');
      if (given !== null && tokenMatches(given, token)) {
        // Later requests carry the cookie instead; the script cannot read it (HttpOnly), other sites cannot send it.
        response.setHeader('Set-Cookie', `${tokenCookie(port)}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`);
        url.searchParams.delete('token');
        if (!url.pathname.startsWith('/api/')) {
          // A page: trade the token in the address for the cookie, so it leaves the address bar and history.
          response.writeHead(303, { Location: url.pathname + url.search });
          return void response.end();
        }
      } else if (!tokenMatches(tokenOf(request, port), token)) {
        response.setHeader('WWW-Authenticate', 'Bearer');
        return sendText(response, 401, 'probe dashboard: token required (open the URL printed by `probe dashboard`)\n');
      }
    }
    const { pathname } = url;
    if (pathname === '/') {
      const body = pageHtml();
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
      return void response.end(request.method === 'HEAD' ? undefined : body);
    }
    if (pathname.startsWith('/assets/')) {
      const asset = await readAsset(pathname.slice('/assets/'.length), assetsDir);
      if (!asset) return sendText(response, 404, 'not found\n');
      response.writeHead(200, { 'Content-Type': asset.type, 'Cache-Control': 'no-cache', 'Content-Length': asset.body.length });
      return void response.end(request.method === 'HEAD' ? undefined : asset.body);
    }
    if (pathname === '/api/info') return sendJson(response, 200, options.info ?? null);
    if (pathname === '/api/captures') return sendJson(response, 200, await options.store.index());
    if (pathname === '/api/calls') {
      const text = url.searchParams.get('q') ?? '';
      return sendJson(response, 200, await searchCalls(text, await options.store.index(), (id) => options.store.find(id)));
    }
    if (pathname === '/api/findings') return sendJson(response, 200, await findingCounts.of(await options.store.index()));
    if (pathname === '/api/baselines') return sendJson(response, 200, baselines ? await baselines.list() : []);
    const reading = READING_PATH.exec(pathname);
    if (reading) {
      const id = decodeURIComponentSafe(reading[1]!);
      if (!isValidCaptureId(id)) return sendJson(response, 400, { error: 'invalid capture id' });
      const capture = await options.store.find(id);
      if (!capture) return sendJson(response, 404, { error: 'capture not found' });
      // As `probe show` gives them: those under the cost floor are left out (`probe show --all` lists them).
      if (reading[2] === 'findings') return sendJson(response, 200, shownFindings(await findings.of(capture)).shown);
      if (reading[2] === 'snapshot')
        return sendJson(response, 200, options.root !== undefined && options.snapshots ? snapshotStatusOf(options.root, options.snapshots, capture) : null);
      if (!baselines) return sendJson(response, 404, { error: 'no app root to read baselines from' });
      try {
        const target = await compareTarget(options.store, baselines, capture, url.searchParams.get('to') ?? 'previous');
        const { templates } = await findings.view();
        const diff = diffCaptures(target.capture, capture, { ...(target.baseline !== undefined ? { baselines: { before: target.baseline } } : {}), templates });
        return sendJson(response, 200, { diff, before: target.capture });
      } catch (error) {
        if (error instanceof QueryError) return sendJson(response, 404, { error: error.message });
        throw error;
      }
    }
    const mocks = MOCKS_PATH.exec(pathname);
    if (mocks) {
      const id = decodeURIComponentSafe(mocks[1]!);
      const format = mocks[2]!;
      if (!isValidCaptureId(id)) return sendJson(response, 400, { error: 'invalid capture id' });
      if (!isMockFormat(format)) return sendJson(response, 404, { error: 'unknown mock format', formats: Object.keys(MOCK_FILES) });
      const capture = await options.store.find(id);
      if (!capture) return sendJson(response, 404, { error: 'capture not found' });
      const file = MOCK_FILES[format];
      const text = mockText(format, captureMocks(capture), captureSource(capture));
      response.writeHead(200, {
        'Content-Type': file.type,
        'Content-Disposition': `attachment; filename="probe-${id}${file.suffix}"`,
        'Cache-Control': 'no-store',
        'Content-Length': Buffer.byteLength(text),
      });
      return void response.end(request.method === 'HEAD' ? undefined : text);
    }
    if (pathname.startsWith('/api/captures/') && pathname.endsWith(HAR_SUFFIX)) {
      const id = decodeURIComponentSafe(pathname.slice('/api/captures/'.length, -HAR_SUFFIX.length));
      if (!isValidCaptureId(id)) return sendJson(response, 400, { error: 'invalid capture id' });
      const capture = await options.store.find(id);
      if (!capture) return sendJson(response, 404, { error: 'capture not found' });
      // A download, whatever the page's own type: the browser saves it as <id>.har.
      response.setHeader('Content-Disposition', `attachment; filename="probe-${id}.har"`);
      return sendJson(response, 200, harOf([capture], packageVersion()));
    }
    if (pathname.startsWith('/api/captures/')) {
      const id = decodeURIComponentSafe(pathname.slice('/api/captures/'.length));
      if (!isValidCaptureId(id)) return sendJson(response, 400, { error: 'invalid capture id' });
      const capture = await options.store.find(id);
      if (!capture) return sendJson(response, 404, { error: 'capture not found' });
      // Endpoints as findings, `probe rows --group-by endpoint` and diffs read them: the page groups by them.
      return sendJson(response, 200, withStoreEndpoints(capture, (await findings.view()).templates));
    }
    if (pathname === '/api/events') return openStream(response);
    return sendText(response, 404, 'not found\n');
  };

  /** Server-Sent Events: the whole index each time it changes (it is at most `storage.limit` rows). */
  const openStream = (response: ServerResponse): void => {
    response.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
    response.write('retry: 2000\n\n');
    streams.add(response);
    const unwatch = watcher.watch((rows) => response.write(`event: index\ndata: ${JSON.stringify(rows)}\n\n`));
    const keepalive = setInterval(() => response.write(': keep-alive\n\n'), SSE_KEEPALIVE_MS);
    response.on('close', () => {
      clearInterval(keepalive);
      unwatch();
      streams.delete(response);
    });
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      options.logger?.warnOnce('dashboard-request', 'dashboard: request failed', error);
      if (!response.headersSent) sendJson(response, 500, { error: 'store error', message: (error as Error).message });
      else response.destroy();
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  port = await listen(server, host, options.port ?? 0);
  const url = `http://${shown}:${port}/${token ? `?token=${encodeURIComponent(token)}` : ''}`;

  return {
    url,
    host,
    allInterfaces: isWildcardHost(host),
    port,
    close: () =>
      new Promise<void>((resolve) => {
        watcher.stop();
        void findings.close();
        for (const stream of streams) stream.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return '';
  }
}
