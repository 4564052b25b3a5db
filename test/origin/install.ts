import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installPinned, pinsKey } from '../helpers/pinned';

/** The client libraries and SDKs whose calls must carry the app's line, pinned. */
export const PACKAGES: Record<string, string> = {
  got: '14.6.6',
  axios: '1.21.1',
  'node-fetch': '2.7.0',
  superagent: '10.4.2',
  ky: '1.14.3',
  needle: '3.5.0',
  undici: '7.30.2',
  openai: '6.49.0',
  '@anthropic-ai/sdk': '1.13.0',
  stripe: '23.1.0',
  '@aws-sdk/client-s3': '3.1175.0',
  '@octokit/rest': '22.0.1',
  googleapis: '178.0.0',
  '@slack/web-api': '8.2.0',
  twilio: '6.2.0',
};

/** Installed outside the repository, kept between runs (PROBE_ORIGIN_CACHE to move it). */
const CACHE = process.env.PROBE_ORIGIN_CACHE ?? path.join(os.homedir(), '.cache', 'probe-origin');

/**
 * An app folder with the pinned packages installed (once; later runs reuse it) and the given app files
 * copied in fresh. Probe itself is loaded from this checkout's dist/ by the test's preload flag.
 */
export async function installApp(files: string[]): Promise<string> {
  const app = await installPinned({
    dir: path.join(CACHE, `sdks-${pinsKey(PACKAGES)}`),
    package: { name: 'origin-sdks', dependencies: PACKAGES },
    probe: false,
  });
  for (const file of files) fs.copyFileSync(path.join(__dirname, 'apps', file), path.join(app, file));
  fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
  return app;
}
