import path from 'node:path';
import { readSafeAsync } from '../util/safeRead';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.map': 'application/json; charset=utf-8',
};

/** The largest built asset served (the page's script and its map are a few MiB). */
const MAX_ASSET_BYTES = 64 * 1024 * 1024;

/** Built browser assets (esbuild output of src/dashboard/ui), shipped in the package next to this file. */
export const ASSETS_DIR = path.join(__dirname, 'assets');

export interface Asset {
  body: Buffer;
  type: string;
}

/** Reads `name` from the assets folder; null for anything that is not a plain file name we serve. */
export async function readAsset(name: string, dir = ASSETS_DIR): Promise<Asset | null> {
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9]+)+$/.test(name)) return null;
  const type = TYPES[path.extname(name)];
  if (!type) return null;
  try {
    return { body: await readSafeAsync(path.join(dir, name), { maxBytes: MAX_ASSET_BYTES, follow: true }), type };
  } catch {
    return null;
  }
}
