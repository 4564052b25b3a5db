import { parseArgs } from 'node:util';
import type { CliCommand } from '../io';
import { commaList, numberFlag, runQuery } from '../queryCommand';
import { queryList } from '../../query/list';
import { renderList } from '../../query/text';
import { StoreFindings } from '../../query/findings';

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
      'group-by': { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
    },
    strict: true,
  });
  return runQuery(io, 'list', {
    json: values.json,
    query: (store, context) =>
      queryList(
        store,
        {
          has: commaList(values.has),
          has_errors: values['has-errors'] || values.errors ? true : values['no-errors'] ? false : undefined,
          since: values.since,
          type: values.type,
          route: values.route,
          group_by: values['group-by'],
          limit: numberFlag(values.limit),
          has_findings: values.findings ? true : values['no-findings'] ? false : undefined,
        },
        undefined,
        new StoreFindings(store, context.config.findings),
      ),
    render: renderList,
  });
};
