import { QueryError } from './QueryError';
import { OPERATORS, type Operator, type WhereClause } from './where';

const CLAUSE = /^\s*([^\s=!<>]+)\s*(>=|<=|!=|=|>|<|\s(?:contains|starts_with)\s)\s*(.*?)\s*$/;

/** A `--where` flag as people type it: `status>=500`, `failed=true`, `url contains /api`. */
export function parseWhere(text: string): WhereClause {
  const match = CLAUSE.exec(text);
  if (!match) {
    throw new QueryError(`--where ${JSON.stringify(text)} is not FIELD OP VALUE (e.g. "status>=500", "url contains /api"); operators`, OPERATORS);
  }
  return { field: match[1]!, op: match[2]!.trim() as Operator, value: match[3]! };
}
