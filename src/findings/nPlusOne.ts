import type { HttpRow } from '../capture/types';
import type { Finding, FindingInput, FindingRule } from './Finding';
import { codeLines, plural, requestIdentity, roundMs } from './callFacts';
import { groupCalls } from './groupCalls';

/**
 * N+1: one call site (the same origin chain) calling one endpoint N times or more with a different id each time,
 * where one call for all of them would do. "One endpoint" is the call site's template (builder/endpointTemplates.ts):
 * `/products/SKU-1…5`, `/users/ada@example.com`, `cus_…` ids and query ids (`?id=…`) all count, whatever the id
 * looks like; GraphQL requests of one operation with different variables too. Left out:
 * - the same request repeated (polling, duplicates, retries: the other rules' or none);
 * - a chain, where each request carries a value of the answer before (cursor or `next` pagination): one call
 *   for all of them cannot be made;
 * - failed calls (a retry loop).
 */
export const nPlusOne: FindingRule = {
  kind: 'n_plus_one',
  find({ rows, order, settings, endpointOf, siteOf, usesOf, timeline }: FindingInput): Finding[] {
    const groups = groupCalls(order, (index) => (rows[index]!.failed ? null : `${siteOf[index]}\n${endpointOf[index]}\n${operationOf(rows[index]!)}`));
    const out: Finding[] = [];
    for (const group of groups) {
      if (group.length < settings.nPlusOne) continue;
      const distinct = new Set(group.map((index) => requestIdentity(rows[index]!) ?? `#${index}`));
      if (distinct.size < settings.nPlusOne) continue;
      if (isChain(group, usesOf)) continue;
      const first = rows[group[0]!]!;
      const endpoint = endpointOf[group[0]!]!;
      const longest = Math.max(...group.map((index) => rows[index]!.duration ?? 0));
      const held = timeline.exclusiveMs(group);
      const ms = roundMs(Math.max(0, held - longest));
      const what = first.method === 'GET' || first.request_payload === null ? 'ids' : 'variables';
      out.push({
        kind: 'n_plus_one',
        message: `N+1: ${endpoint} called ${group.length} times from one code line with ${distinct.size} different ${what} (${roundMs(held)} ms on the unit's path); one call for all of them would do`,
        rows: group,
        lines: codeLines(rows, group),
        endpoint,
        saving_ms: ms,
        cost: { ms, calls: group.length - 1, bytes: 0 },
      });
    }
    return out;
  },
};

/** A GraphQL operation (its name, else its text), or the request's top-level field names: calls of one kind. */
function operationOf(row: HttpRow): string {
  const payload = row.request_payload;
  if (payload === null || Array.isArray(payload)) return '';
  if (typeof payload.query === 'string') return `graphql ${typeof payload.operationName === 'string' ? payload.operationName : payload.query}`;
  return Object.keys(payload).sort().join(',');
}

/** Whether most calls of the group carry a value an earlier call of the group answered (pagination). */
function isChain(group: readonly number[], usesOf: FindingInput['usesOf']): boolean {
  const members = new Set(group);
  let linked = 0;
  for (let i = 1; i < group.length; i++) if (usesOf[group[i]!]!.some((earlier) => members.has(earlier))) linked++;
  return linked * 2 >= group.length - 1;
}
