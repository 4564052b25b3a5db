import { parseArgs } from 'node:util';
import type { CliCommand } from '../io';
import { commaList, numberFlag, runQuery } from '../queryCommand';
import { KNOWN_SECTIONS } from '../../query/locate';
import { queryRows } from '../../query/rows';
import { ROW_FIELD } from '../../query/rowSelect';
import { renderRows } from '../../query/text';
import { parseWhere } from '../../query/whereText';
import { groupedRows } from './groupedRows';

/**
 * `probe rows [id|*]`: rows of a section, filtered and sorted; the probe-rows tool as a shell command, one
 * flag per tool input. `--where` takes `FIELD OP VALUE` and may be repeated: `--where status>=500 --where
 * "url contains /api"`. A positional that names a section (`probe rows http`) is read as `--section`.
 */
export const rows: CliCommand = async (argv, io) => {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      section: { type: 'string' },
      where: { type: 'string', multiple: true },
      sort: { type: 'string' },
      dir: { type: 'string' },
      limit: { type: 'string' },
      fields: { type: 'string', multiple: true },
      id: { type: 'string' },
      since: { type: 'string' },
      type: { type: 'string' },
      name: { type: 'string' },
      json: { type: 'boolean' },
      'group-by': { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  let { id, section } = values;
  for (const positional of positionals) {
    if (section === undefined && KNOWN_SECTIONS.includes(positional)) section = positional;
    else if (id === undefined) id = positional;
    else {
      io.err(
        `probe rows: one capture id at most, got ${JSON.stringify(id)} and ${JSON.stringify(positional)} (usage: probe rows [id|*] [options]; see probe rows --help)`,
      );
      return 2;
    }
  }
  const fields = commaList(values.fields);
  // The table always shows the ROW number; JSON holds exactly the fields asked for.
  const asked = !values.json && fields?.length && !fields.includes(ROW_FIELD) ? [ROW_FIELD, ...fields] : fields;
  if (values['group-by'] !== undefined) return groupedRows(io, { ...values, id, section, fields }, values['group-by']);
  return runQuery(io, 'rows', {
    json: values.json,
    query: (store) =>
      queryRows(store, {
        section,
        where: values.where?.map(parseWhere),
        sort: values.sort,
        dir: values.dir as 'asc' | 'desc' | undefined,
        limit: numberFlag(values.limit),
        fields: asked,
        id,
        since: values.since,
        type: values.type,
        name: values.name,
      }),
    render: (result) => renderRows(result, fields),
  });
};
