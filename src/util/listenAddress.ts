import { hostname, networkInterfaces } from 'node:os';
import { isIP } from 'node:net';

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]', '']);

/** Binds that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  return name === 'localhost' || name === '::1' || (isIP(name) === 4 && name.startsWith('127.'));
}

export function isWildcardHost(host: string): boolean {
  return WILDCARDS.has(host);
}

/**
 * The host to print for a server bound to `host`: the bound host itself, or for every interface (0.0.0.0,
 * ::) the machine's first non-internal IPv4 address, else its hostname, so the printed URL works from
 * another machine. IPv6 literals come bracketed.
 */
export function shownHost(host: string): string {
  let name = host;
  if (isWildcardHost(host)) name = firstExternalIPv4() ?? hostname();
  return isIP(name) === 6 ? `[${name}]` : name;
}

function firstExternalIPv4(): string | null {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
  }
  return null;
}
