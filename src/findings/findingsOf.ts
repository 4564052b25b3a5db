import type { Capture } from '../capture/types';
import { DEFAULT_FINDING_SETTINGS, type EndpointStat, type Finding, type FindingInput, type FindingRule, type FindingSettings } from './Finding';
import { siteOf, startOrder } from './callFacts';
import { templateEndpoints, type EndpointTemplates } from '../builder/endpointTemplates';
import { usesOfRows } from './dependence';
import { Timeline } from './timeline';
import { weighFindings } from './floor';
import { repeatedWrite } from './repeatedWrite';
import { nPlusOne } from './nPlusOne';
import { duplicateCalls } from './duplicateCalls';
import { sequentialCalls } from './sequentialCalls';
import { retryAfterFailure } from './retryAfterFailure';
import { slowerThanUsual } from './slowerThanUsual';
import { polling } from './polling';

/** Every finding kind; adding one is a file behind the FindingRule contract and a line here. */
export const FINDING_RULES: readonly FindingRule[] = [repeatedWrite, nPlusOne, duplicateCalls, sequentialCalls, retryAfterFailure, slowerThanUsual, polling];

/**
 * The findings of one capture's calls, every one with its cost, ordered by it (a repeated write first), those
 * under the floor marked `below_floor`. Pure, and O(calls + values) apart from sorting: each rule is one pass
 * over calls grouped by a key, and what several read (templates, `uses`, the time line) is made once. `endpoints`
 * and `templates`: what the stored captures say of each endpoint (query/storeEndpoints.ts), when the reader has it.
 */
export function findingsOf(
  capture: Pick<Capture, 'sections'> & Partial<Pick<Capture, 'duration'>>,
  settings: FindingSettings = DEFAULT_FINDING_SETTINGS,
  endpoints?: ReadonlyMap<string, EndpointStat>,
  statsInclude = false,
  templates?: EndpointTemplates,
): Finding[] {
  const rows = Array.isArray(capture.sections?.http) ? capture.sections.http : [];
  if (rows.length === 0) return [];
  const order = startOrder(rows);
  const position = new Int32Array(rows.length);
  order.forEach((index, at) => (position[index] = at));
  const input: FindingInput = {
    rows,
    order,
    settings,
    ...(endpoints ? { endpoints, statsInclude } : {}),
    endpointOf: templateEndpoints(rows, templates),
    siteOf: rows.map(siteOf),
    usesOf: usesOfRows(rows),
    timeline: new Timeline(rows),
  };
  const found = FINDING_RULES.flatMap((rule) => rule.find(input));
  const unitMs = typeof capture.duration === 'number' ? capture.duration : 0;
  return weighFindings(found, unitMs, (row) => position[row]!);
}
