import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { bearerToken } from '../util/accessToken';

export { tokenMatches } from '../util/accessToken';

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

/** Named per port: cookies ignore ports, and two dashboards on one host must not overwrite each other's. */
export function tokenCookie(port: number): string {
  return `probe_dashboard_token_${port}`;
}

function cookieValue(request: IncomingMessage, name: string): string | null {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) {
      try {
        return decodeURIComponent(part.slice(index + 1).trim());
      } catch {
        return null;
      }
    }
  }
  return null;
}

/** The token a request carries: `Authorization: Bearer`, `X-Probe-Token`, or the cookie set on first visit. */
export function tokenOf(request: IncomingMessage, port: number): string | null {
  const bearer = bearerToken(request);
  if (bearer !== null) return bearer;
  const header = request.headers['x-probe-token'];
  if (typeof header === 'string') return header;
  return cookieValue(request, tokenCookie(port));
}
