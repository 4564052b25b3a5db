import type { Capture } from '../capture/types';
import { DEFAULT_FINDING_SETTINGS, type EndpointStat, type Finding, type FindingRule, type FindingSettings } from './Finding';
import { startOrder } from './callFacts';
import { nPlusOne } from './nPlusOne';
import { duplicateCalls } from './duplicateCalls';
import { sequentialCalls } from './sequentialCalls';
import { retryAfterFailure } from './retryAfterFailure';
import { slowerThanUsual } from './slowerThanUsual';

/** Every finding kind; adding one is a file behind the FindingRule contract and a line here. */
export const FINDING_RULES: readonly FindingRule[] = [nPlusOne, duplicateCalls, sequentialCalls, retryAfterFailure, slowerThanUsual];

/** The findings of one capture's calls, in the order of their first row. Pure. */
export function findingsOf(
  capture: Pick<Capture, 'sections'>,
  settings: FindingSettings = DEFAULT_FINDING_SETTINGS,
  endpoints?: ReadonlyMap<string, EndpointStat>,
): Finding[] {
  const rows = Array.isArray(capture.sections?.http) ? capture.sections.http : [];
  if (rows.length === 0) return [];
  const order = startOrder(rows);
  const position = new Map(order.map((index, at) => [index, at]));
  const input = { rows, order, settings, ...(endpoints ? { endpoints } : {}) };
  return FINDING_RULES.flatMap((rule) => rule.find(input)).sort((a, b) => position.get(a.rows[0]!)! - position.get(b.rows[0]!)!);
}
