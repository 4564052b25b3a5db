import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installPinned, pinsKey } from '../../helpers/pinned';

/** The transformers, bundlers and test runners whose origins the matrix checks, pinned. */
export const PINS: Record<string, string> = {
  typescript: '5.9.3',
  '@types/node': '22.20.5',
  'ts-node': '10.9.2',
  tsx: '4.23.15',
  '@swc-node/register': '1.12.1',
  '@swc/core': '1.16.22',
  '@babel/core': '7.28.5',
  '@babel/register': '7.29.13',
  '@babel/preset-typescript': '7.28.5',
  '@babel/preset-env': '7.28.5',
  esbuild: '0.28.2',
  'esbuild-register': '3.6.0',
  webpack: '5.113.0',
  'ts-loader': '9.6.2',
  rollup: '4.68.8',
  pirates: '4.0.7',
  vitest: '3.2.4',
};

/** Installed outside the repository, kept between runs (PROBE_ORIGIN_MAPS_CACHE to move it). */
const CACHE = process.env.PROBE_ORIGIN_MAPS_CACHE ?? path.join(os.homedir(), '.cache', 'probe-origin-maps');

/** Jest, its two transformers and what they need, for one Jest version (one install each: a folder holds one Jest). */
export const jestPins = (version: string): Record<string, string> => ({
  jest: version,
  'babel-jest': version,
  'ts-jest': '29.4.15',
  '@babel/core': '7.28.5',
  '@babel/preset-env': '7.28.5',
  typescript: '5.9.3',
});

/** A folder with `pins` installed (once; later runs reuse it). Probe comes from this checkout's dist/, by path. */
export function installMatrix(name = 'matrix', pins: Record<string, string> = PINS): Promise<string> {
  return installPinned({ dir: path.join(CACHE, `${name}-${pinsKey(pins)}`), package: { name: `origin-${name}`, dependencies: pins }, probe: false });
}

/**
 * A fresh app folder for one setup inside the installed one (packages resolve from its node_modules above), with
 * its own package.json: the app root origins are relative to.
 */
export function setupFolder(installed: string, name: string, files: Record<string, string>): string {
  const dir = path.join(installed, 'setups', name);
  fs.rmSync(dir, { recursive: true, force: true });
  for (const [file, text] of Object.entries({ 'package.json': JSON.stringify({ name: `setup-${name}`, private: true }), ...files })) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}
