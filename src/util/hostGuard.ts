import { isIP } from 'node:net';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);
const WILDCARD = new Set(['0.0.0.0', '::', '']);

/** Splits a Host header into name and port (`[::1]:4400` → `::1`, `4400`). */
export function parseHostHeader(header: string): { name: string; port: string } | null {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d+))?$/.exec(header.trim());
  if (!match) return null;
  return { name: (match[1] ?? match[2] ?? '').toLowerCase(), port: match[3] ?? '80' };
}

/**
 * DNS rebinding defence: a page on an attacker's domain that resolves to 127.0.0.1 reaches us with its own
 * domain in Host. So only the bound host is accepted, plus the loopback names when bound to loopback, and
 * IP literals and the name in the printed URL (`shown`, the machine's hostname when it has no external
 * IPv4 address) when bound to every interface (an IP literal cannot be rebound).
 */
export function isAllowedHost(header: string | undefined, boundHost: string, port: number, shown?: string): boolean {
  if (!header) return false;
  const parsed = parseHostHeader(header);
  if (!parsed || parsed.port !== String(port)) return false;
  const bound = boundHost.toLowerCase().replace(/^\[|\]$/g, '');
  if (parsed.name === bound) return true;
  if (LOOPBACK_NAMES.has(bound) || bound.startsWith('127.')) return LOOPBACK_NAMES.has(parsed.name);
  if (WILDCARD.has(bound)) return LOOPBACK_NAMES.has(parsed.name) || isIP(parsed.name) !== 0 || parsed.name === shown?.toLowerCase();
  return false;
}

/**
 * A browser names the page that sent a request in Origin: a page on another site (a rebound name, any site at
 * all) is refused, whatever its port; a page served by this machine (a loopback name, the bound host) is not.
 * No Origin (every OTel SDK outside a browser) passes; `null` (a sandboxed frame, a file) does not.
 */
export function isAllowedOrigin(header: string | undefined, boundHost: string, shown?: string): boolean {
  if (header === undefined) return true;
  let name: string;
  try {
    name = new URL(header).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  const bound = boundHost.toLowerCase().replace(/^\[|\]$/g, '');
  if (name === bound || LOOPBACK_NAMES.has(name)) return true;
  if (WILDCARD.has(bound)) return isIP(name) !== 0 || name === shown?.toLowerCase();
  return false;
}
