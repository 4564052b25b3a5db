import type { IncomingMessage } from 'node:http';
import { bearerToken } from '../util/accessToken';

export { tokenMatches } from '../util/accessToken';
export { isAllowedHost, parseHostHeader } from '../util/hostGuard';

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
