import { parseArgs } from 'node:util';
import type { CliCommand } from '../io';
import { commaList, numberFlag, runQuery } from '../queryCommand';
import { queryShow } from '../../query/show';
import { renderShow } from '../../query/text';
import { StoreFindings } from '../../query/findings';
import { BaselineStore } from '../../baselines/BaselineStore';
import { queryFlow } from '../../query/flow';
import { renderFlow } from '../../flows/flowText';

/** `probe show [id]`: one capture (default the newest), or one row whole with --row; the probe-show tool as a shell command. */
export const show: CliCommand = async (argv, io) => {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      id: { type: 'string' },
      sections: { type: 'string', multiple: true },
      limit: { type: 'string' },
      section: { type: 'string' },
      row: { type: 'string' },
      'compare-to': { type: 'string' },
      all: { type: 'boolean' },
      flow: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 1 || (positionals.length === 1 && values.id !== undefined)) {
    io.err(
      `probe show: one capture id at most, got ${[values.id, ...positionals]
        .filter(Boolean)
        .map((id) => JSON.stringify(id))
        .join(' and ')} (usage: probe show [id] [options]; see probe show --help)`,
    );
    return 2;
  }
  const row = numberFlag(values.row);
  if (row !== undefined && (values.row!.trim() === '' || !Number.isInteger(row) || row < 0)) {
    io.err(`probe show: --row must be a row number, 0 or more (the ROW column of probe rows), got ${JSON.stringify(values.row)}`);
    return 2;
  }
  if (values.flow) {
    return runQuery(io, 'show', {
      json: values.json,
      query: (store) => queryFlow(store, { id: values.id ?? positionals[0] }),
      render: renderFlow,
    });
  }
  return runQuery(io, 'show', {
    json: values.json,
    query: (store, context) =>
      queryShow(
        store,
        {
          id: values.id ?? positionals[0],
          sections: commaList(values.sections),
          limit: numberFlag(values.limit),
          section: values.section,
          row,
          compare_to: values['compare-to'],
          ...(values.all ? { all: true } : {}),
        },
        { findings: new StoreFindings(store, context.config.findings), baselines: new BaselineStore(context.config.root) },
      ),
    render: renderShow,
  });
};
