import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installPinned, pinsKey } from '../helpers/pinned';

/** The frameworks and libraries whose calls must carry the app's line, pinned, one app folder each. */
export const APPS = {
  apollo: {
    '@apollo/server': '4.13.0',
    '@apollo/datasource-rest': '6.4.1',
    graphql: '16.15.0',
    dataloader: '2.2.3',
    'graphql-request': '7.4.0',
    axios: '1.21.1',
    request: '2.88.2',
    'posthog-node': '5.70.0',
  },
  sveltekit: {
    '@sveltejs/kit': '2.70.4',
    '@sveltejs/adapter-node': '5.5.7',
    '@sveltejs/vite-plugin-svelte': '5.1.0',
    svelte: '5.57.3',
    vite: '6.4.6',
  },
  nitro: {
    nitropack: '2.13.6',
  },
  nuxt: {
    nuxt: '3.21.11',
    vue: '3.5.45',
  },
  'react-router': {
    'react-router': '7.18.4',
    '@react-router/node': '7.18.4',
    '@react-router/serve': '7.18.4',
    '@react-router/dev': '7.18.4',
    react: '19.2.0',
    'react-dom': '19.2.0',
    isbot: '5.2.3',
    vite: '6.4.6',
  },
} satisfies Record<string, Record<string, string>>;

export type AppName = keyof typeof APPS;

/** Installed outside the repository, kept between runs (PROBE_FRAMES_CACHE to move it). */
const CACHE = process.env.PROBE_FRAMES_CACHE ?? path.join(os.homedir(), '.cache', 'probe-origin-frames');

/**
 * An app folder with its pinned packages installed (once; later runs reuse them) and the fixture's files
 * (test/frames/apps/<name>) copied in fresh. Probe is this checkout's dist/, through the test's preload flag.
 */
export async function installFrameApp(name: AppName): Promise<string> {
  const dependencies = APPS[name];
  const app = await installPinned({
    dir: path.join(CACHE, `${name}-${pinsKey(dependencies)}`),
    package: { name: `frames-${name}`, type: 'module', dependencies },
    probe: false,
  });
  const fixture = path.join(__dirname, 'apps', name);
  if (fs.existsSync(fixture)) fs.cpSync(fixture, app, { recursive: true });
  fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
  return app;
}

/**
 * A second app folder beside the installed one (`<app>-<copy>`), its node_modules that one's (a link), the
 * fixture's files copied in fresh: a dev server's files and captures apart from the build tests of the same app,
 * which may run at the same time.
 */
export async function frameAppCopy(name: AppName, copy: string): Promise<string> {
  const installed = await installFrameApp(name);
  const app = `${installed}-${copy}`;
  fs.mkdirSync(app, { recursive: true });
  for (const entry of fs.readdirSync(app))
    if (entry !== 'node_modules' && !entry.startsWith('.')) fs.rmSync(path.join(app, entry), { recursive: true, force: true });
  if (!fs.existsSync(path.join(app, 'node_modules'))) fs.symlinkSync(path.join(installed, 'node_modules'), path.join(app, 'node_modules'), 'dir');
  fs.copyFileSync(path.join(installed, 'package.json'), path.join(app, 'package.json'));
  fs.cpSync(path.join(__dirname, 'apps', name), app, { recursive: true });
  fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
  return app;
}
