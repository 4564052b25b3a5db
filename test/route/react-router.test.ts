import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv, installPinned } from '../helpers/pinned';
import { runChild, startChild } from '../helpers/child';
import { eventually, REPO_ROOT } from '../helpers/app';

/**
 * React Router 7 in framework mode as its users ship it: `react-router build`, then `react-router-serve` (Express
 * with one catch-all `*` route that hands every request to React Router). Each request's route is the one React
 * Router matched, as its route config writes it: a resource route, a page and its single-fetch data request; a
 * 404 has none (never the server's `*`).
 */
const CACHE = process.env.PROBE_ROUTE_FRAMEWORKS_CACHE ?? path.join(os.homedir(), '.cache', 'probe-route-frameworks');
const PINS = {
  'react-router': '7.18.4',
  '@react-router/node': '7.18.4',
  '@react-router/serve': '7.18.4',
  '@react-router/dev': '7.18.4',
  react: '19.2.0',
  'react-dom': '19.2.0',
  isbot: '5.1.31',
  vite: '8.3.8',
};

const FILES: Record<string, string> = {
  'react-router.config.ts': 'export default { ssr: true };\n',
  'vite.config.ts': "import { reactRouter } from '@react-router/dev/vite';\nexport default { plugins: [reactRouter()] };\n",
  'app/root.tsx': `import { Outlet, Scripts } from 'react-router';
export default function App() {
  return (<html lang="en"><body><Outlet /><Scripts /></body></html>);
}
`,
  'app/routes.ts': `import { route } from '@react-router/dev/routes';
export default [route('api/users/:id', 'routes/user.ts'), route('pages/:slug', 'routes/page.tsx')];
`,
  'app/routes/user.ts': 'export async function loader({ params }: { params: { id: string } }) {\n  return Response.json({ id: params.id });\n}\n',
  'app/routes/page.tsx': 'export default function Page() {\n  return <p>page</p>;\n}\n',
};

/** A port the system picked and let go: react-router-serve prints the port it was given, not the one it got. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const PATHS = ['/api/users/42', '/pages/hello', '/pages/hello.data', '/nope'];

async function serve(app: string, preload: boolean): Promise<Array<{ path: string; status: number; body: string }>> {
  fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...cleanEnv(), PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production' };
  if (preload) env.NODE_OPTIONS = `--require ${path.join(REPO_ROOT, 'dist', 'register.js')}`;
  const child = startChild(process.execPath, [path.join(app, 'node_modules', '@react-router', 'serve', 'bin.js'), './build/server/index.js'], {
    cwd: app,
    env,
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  await eventually(() => out.includes('[react-router-serve]') || child.exitCode !== null, 120_000);
  assert.equal(child.exitCode, null, out);
  const answers = [];
  for (const at of PATHS) {
    const response = await fetch(`http://127.0.0.1:${port}${at}`);
    const body = await response.text();
    // The page's HTML carries per-build asset names, the same with and without Probe; a 404 the same.
    answers.push({ path: at, status: response.status, body: at.startsWith('/api') ? body : String(body.length > 0) });
  }
  if (preload) await eventually(() => readRows(app).filter((row) => row.type === 'request').length >= PATHS.length);
  child.kill('SIGTERM');
  await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
  return answers;
}

function readRows(app: string): Array<{ type: string; name: string; route: string | null; status: string }> {
  const dir = path.join(app, '.probe', 'captures');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).map((file) => (JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { row: never }).row);
}

test("React Router 7 under react-router-serve: each request's route is the one React Router matched; a 404 has none", { timeout: 900_000 }, async () => {
  const app = await installPinned({
    dir: path.join(CACHE, 'react-router-7'),
    package: { name: 'route-react-router', type: 'module', dependencies: PINS },
    probe: false,
    prepare: (dir) => {
      for (const [file, text] of Object.entries(FILES)) {
        fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        fs.writeFileSync(path.join(dir, file), text);
      }
    },
  });
  fs.rmSync(path.join(app, 'build'), { recursive: true, force: true });
  const built = await runChild(process.execPath, [path.join(app, 'node_modules', '@react-router', 'dev', 'bin.js'), 'build'], {
    cwd: app,
    env: cleanEnv(),
    timeout: 300_000,
  });
  assert.equal(built.code, 0, built.stdout + built.stderr);

  const alone = await serve(app, false);
  assert.deepEqual(
    alone.map((answer) => answer.status),
    [200, 200, 200, 404],
  );
  const withProbe = await serve(app, true);
  assert.deepEqual(withProbe, alone, 'the app answers as without Probe');
  const routes = Object.fromEntries(
    readRows(app)
      .filter((row) => row.type === 'request')
      .map((row) => [row.name, row.route]),
  );
  assert.deepEqual(routes, {
    'GET /api/users/42': '/api/users/:id',
    'GET /pages/hello': '/pages/:slug',
    'GET /pages/hello.data': '/pages/:slug',
    'GET /nope': null,
  });
});
