import type { Capture } from '../../src/capture/types';
import { pathOf, rowsOf } from './jestRun';
import { ownerOf } from './orderedUpstream';

/** Each capture's calls (path and query), by capture name; the process's command capture as `''`. */
export function callsByCapture(captures: Capture[]): Record<string, string[]> {
  const seen: Record<string, string[]> = {};
  for (const capture of captures) {
    const key = capture.type === 'test' ? capture.name : capture.type === 'command' ? '' : `${capture.type} ${capture.name}`;
    (seen[key] ??= []).push(...rowsOf(capture).map((row) => pathOf(row.url)));
  }
  for (const calls of Object.values(seen)) calls.sort();
  return seen;
}

/** The calls the server received, by the test each names as its maker (see ownerOf). */
export function callsByOwner(arrived: string[]): Record<string, string[]> {
  const owners: Record<string, string[]> = {};
  for (const call of arrived) (owners[ownerOf(call)] ??= []).push(call);
  for (const calls of Object.values(owners)) calls.sort();
  return owners;
}
