import { parseArgs } from 'node:util';
import type { CliCommand } from '../io';
import { commaList, numberFlag, runQuery } from '../queryCommand';
import { queryList } from '../../query/list';
import { renderList } from '../../query/text';
import { StoreFindings } from '../../query/findings';
import { withBaselines } from '../../query/baselineList';
import { BaselineStore } from '../../baselines/BaselineStore';
import { elsewhereLine, storesBelow } from '../storesElsewhere';

/** `probe list`: recent captures, newest first; the probe-list tool as a shell command. */
export const list: CliCommand = async (argv, io) => {
  const { values } = parseArgs({
    args: argv,
    options: {
      has: { type: 'string', multiple: true },
      'has-errors': { type: 'boolean' },
      errors: { type: 'boolean' },
      'no-errors': { type: 'boolean' },
      findings: { type: 'boolean' },
      'no-findings': { type: 'boolean' },
      since: { type: 'string' },
      type: { type: 'string' },
      route: { type: 'string' },
      service: { type: 'string' },
      'group-by': { type: 'string' },
      limit: { type: 'string' },
      baselines: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    strict: true,
  });
  return runQuery(io, 'list', {
    json: values.json,
    query: async (store, context) => {
      const result = await queryList(
        store,
        {
          has: commaList(values.has),
          has_errors: values['has-errors'] || values.errors ? true : values['no-errors'] ? false : undefined,
          since: values.since,
          type: values.type,
          route: values.route,
          service: values.service,
          group_by: values['group-by'],
          limit: numberFlag(values.limit),
          has_findings: values.findings ? true : values['no-findings'] ? false : undefined,
        },
        undefined,
        new StoreFindings(store, context.config.findings),
      );
      const config = context.config;
      if (values.baselines) return withBaselines(result, new BaselineStore(config.root));
      if (result.total > 0 || config.storage.driver !== 'file') return result;
      // An empty store at a root below which a process with a root of its own stored: say where.
      const elsewhere = storesBelow(config.root);
      return elsewhere.length ? { ...result, note: elsewhereLine(elsewhere) } : result;
    },
    render: renderList,
  });
};
