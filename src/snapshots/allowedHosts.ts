import { isIP } from 'node:net';

/**
 * Whether a test may call a host (`snapshots.hosts`). Entries: `loopback` (localhost, `*.localhost`, 127.0.0.0/8,
 * ::1), `private` (10/8, 172.16/12, 192.168/16, 169.254/16, fc00::/7, fe80::/10, and names no public DNS answers:
 * one label such as a compose service `db`, or ending in `.local`, `.internal`, `.test`, `.home.arpa`), a host
 * name or IP (`api.test`), or `*.suffix` (any name under it).
 */
export function hostAllowed(hostname: string, entries: readonly string[]): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  for (const entry of entries) {
    if (entry === 'loopback' ? isLoopback(host) : entry === 'private' ? isPrivate(host) : matchesEntry(host, entry)) return true;
  }
  return false;
}

function matchesEntry(host: string, entry: string): boolean {
  if (entry.startsWith('*.')) return host.endsWith(entry.slice(1));
  return host === entry.replace(/^\[|\]$/g, '');
}

export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost') || host === '::1') return true;
  const v4 = ipv4Of(host);
  return v4 !== null && v4[0] === 127;
}

const PRIVATE_SUFFIXES = ['.local', '.internal', '.test', '.home.arpa'];

export function isPrivate(host: string): boolean {
  const v4 = ipv4Of(host);
  if (v4) {
    const [a, b] = v4 as [number, number];
    return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
  }
  if (isIP(host) === 6) return /^f[cd]/.test(host) || /^fe[89ab]/.test(host);
  if (isIP(host) !== 0) return false;
  return !host.includes('.') || PRIVATE_SUFFIXES.some((suffix) => host.endsWith(suffix));
}

/** The four numbers of an IPv4 address, also written as IPv6 (`::ffff:10.0.0.1`); null for anything else. */
function ipv4Of(host: string): number[] | null {
  const text = host.startsWith('::ffff:') ? host.slice(7) : host;
  if (isIP(text) !== 4) return null;
  return text.split('.').map(Number);
}
