/**
 * A bad query input: the message says what was wrong and lists the valid values, so an agent can fix its
 * call in one step. The MCP server turns it into a tool error (`isError`), the CLI into exit code 2.
 */
export class QueryError extends Error {
  override readonly name = 'QueryError';

  constructor(
    message: string,
    /** The values that would have been accepted, when there is such a list. */
    readonly valid: readonly string[] = [],
  ) {
    super(valid.length > 0 ? `${message}. Valid values: ${valid.join(', ')}` : message);
  }
}
