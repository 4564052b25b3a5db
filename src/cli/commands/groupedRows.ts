import type { CliIo } from '../io';
import { numberFlag, runQuery } from '../queryCommand';
import { queryGroups } from '../../query/groups';
import { renderGroups } from '../../query/groupsText';
import { parseWhere } from '../../query/whereText';

interface RowsFlags {
  section?: string;
  where?: string[];
  sort?: string;
  dir?: string;
  limit?: string;
  fields?: string[];
  id?: string;
  since?: string;
  type?: string;
  name?: string;
  json?: boolean;
}

/** `probe rows --group-by FIELD`: the probe-rows tool's aggregates (one line per group) as a shell command. */
export function groupedRows(io: CliIo, values: RowsFlags, groupBy: string): Promise<number> {
  return runQuery(io, 'rows', {
    json: values.json,
    query: (store) =>
      queryGroups(store, {
        group_by: groupBy,
        section: values.section,
        where: values.where?.map(parseWhere),
        sort: values.sort,
        dir: values.dir as 'asc' | 'desc' | undefined,
        limit: numberFlag(values.limit),
        fields: values.fields,
        id: values.id,
        since: values.since,
        type: values.type,
        name: values.name,
      }),
    render: renderGroups,
  });
}
