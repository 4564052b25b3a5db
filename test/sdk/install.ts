import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installPinned, pinsKey } from '../helpers/pinned';

/** SDK apps are installed outside the repository and kept between runs (PROBE_SDK_CACHE to move it). */
export const CACHE = process.env.PROBE_SDK_CACHE ?? path.join(os.homedir(), '.cache', 'probe-sdk');

/**
 * An app folder in the cache with the SDKs at their pinned versions and this checkout's packed Probe beside
 * them, installed as a user would. `files` are written into it (the app, its config).
 */
export function installSdkApp(name: string, dependencies: Record<string, string>, files: Record<string, string>): Promise<string> {
  return installPinned({
    dir: path.join(CACHE, `${name}-${pinsKey(dependencies)}`),
    package: { name: `sdk-${name}`, dependencies },
    probe: true,
    prepare(app) {
      for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(app, file), text);
      fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
    },
  });
}
