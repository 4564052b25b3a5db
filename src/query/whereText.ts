import { QueryError } from './QueryError';
import { MAX_INPUT_CHARS, shownInput } from './inputs';
import { OPERATORS, type Operator, type WhereClause } from './where';

// Matched on the trimmed text: a lazy value between two runs of spaces (`\s*(.*?)\s*$`) backtracks
// quadratically on a long run of spaces. Here each part can only end where the next begins.
const CLAUSE = /^([^\s=!<>]+)\s*(>=|<=|!=|=|>|<|\s(?:contains|starts_with)\s)\s*([\s\S]*)$/;

/** A `--where` flag as people type it: `status>=500`, `failed=true`, `url contains /api`. */
export function parseWhere(text: string): WhereClause {
  if (text.length > MAX_INPUT_CHARS) throw new QueryError(`--where is too long: ${text.length} characters, at most ${MAX_INPUT_CHARS} (${shownInput(text)})`);
  const match = CLAUSE.exec(text.trim());
  if (!match) {
    throw new QueryError(`--where ${shownInput(text)} is not FIELD OP VALUE (e.g. "status>=500", "url contains /api"); operators`, OPERATORS);
  }
  return { field: match[1]!, op: match[2]!.trim() as Operator, value: match[3]! };
}
