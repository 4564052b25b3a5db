import * as ownApi from '@opentelemetry/api';
import { appApiPath } from './appApiPath';

export type OtelApi = typeof ownApi;

/**
 * The copy of `@opentelemetry/api` the app itself loads, for every global registration Probe makes.
 *
 * The API's global registry (`globalThis[Symbol.for('opentelemetry.js.api.1')]`) keeps the version of the copy
 * that created it, and `registerGlobal` refuses any later registration from a copy of another version, even a
 * patch apart (https://github.com/open-telemetry/opentelemetry-js/blob/main/api/src/internal/global-utils.ts).
 * A packed install dedupes Probe's peer onto the app's copy, but a linked checkout (`npm install probe@file:/path/to/probe`),
 * a global install, a workspace that hoists another version, all leave Probe resolving a copy of its own: a
 * registration made through it would turn the app's `provider.register()`, propagator and context manager away.
 * Probe's own copy still reads a registry of the same or a newer minor (`isCompatible`, api/src/internal/semver.ts).
 *
 * Probe's own copy when the app has none. The preload also gives Probe's files the app's copy (appApiPath.ts).
 */
export function appApi(root: string): OtelApi {
  const at = appApiPath(root);
  try {
    const api = at ? (require(at) as Partial<OtelApi> | undefined) : undefined;
    if (typeof api?.context?.setGlobalContextManager === 'function') return api as OtelApi;
  } catch {
    // unreadable copy: Probe's own
  }
  return ownApi;
}
