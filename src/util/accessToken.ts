import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from './listenAddress';

/** A fresh token: 24 random bytes, URL-safe (as Jupyter prints its own). */
export function newAccessToken(): string {
  return randomBytes(24).toString('base64url');
}

/** A token anyone on the network can send is guessed: beyond loopback, a shorter one is refused. */
export const MIN_TOKEN_LENGTH = 16;

/** A token too short for a server others can reach; the message is one line, for the command to print. */
export class AccessTokenError extends Error {
  override readonly name = 'AccessTokenError';
}

/**
 * The token a server bound to `host` requires: `--token` when given; else, beyond loopback, `PROBE_TOKEN` or a
 * fresh random one. A loopback bind without `--token` needs none (the Host check keeps other sites out). Beyond
 * loopback a given token shorter than MIN_TOKEN_LENGTH throws AccessTokenError.
 */
export function resolveAccessToken(host: string, explicit: string | undefined, env: NodeJS.ProcessEnv): string | null {
  if (explicit) return checkedToken(host, explicit, '--token');
  if (isLoopbackHost(host)) return null;
  return env.PROBE_TOKEN ? checkedToken(host, env.PROBE_TOKEN, 'PROBE_TOKEN') : newAccessToken();
}

function checkedToken(host: string, token: string, source: string): string {
  if (token.length >= MIN_TOKEN_LENGTH || isLoopbackHost(host)) return token;
  throw new AccessTokenError(
    `the token must be at least ${MIN_TOKEN_LENGTH} characters on ${host} (${source} has ${token.length}); leave it out for a random one`,
  );
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Constant-time comparison (hashing first makes the lengths equal, so the length leaks nothing either). */
export function tokenMatches(given: string | null | undefined, token: string): boolean {
  return typeof given === 'string' && timingSafeEqual(digest(given), digest(token));
}

/** `Authorization: Bearer <token>` (the scheme in any case, as RFC 7235 has it), else null. */
export function bearerToken(request: IncomingMessage): string | null {
  const match = /^bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match ? match[1]! : null;
}
