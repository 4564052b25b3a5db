type GraphqlModule = typeof import('graphql');
let graphql: GraphqlModule | null = null;

/** A GraphQL Name (https://spec.graphql.org/October2021/#Name), bounded: nothing else ever reaches a capture name. */
const NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;
/** Operations named per request at most (a batch). */
const MAX_NAMES = 5;

/**
 * The operation names a GraphQL request says, by the GraphQL over HTTP rule, whatever server answers it: a JSON body
 * (or a batch of them) with `operationName`, else the first named operation of its `query`; an
 * `application/graphql` body (the document itself); a GET's `query`/`operationName` parameters. Null when the
 * request is not GraphQL's or names no operation.
 */
export function graphqlOperation(contentType: string | undefined, body: string | null, search: string): string | null {
  const names: string[] = [];
  if (body === null) {
    const params = new URLSearchParams(search);
    const query = params.get('query');
    if (query === null) return null;
    add(names, params.get('operationName') ?? firstNamed(query));
  } else if (/\bapplication\/graphql\b/i.test(contentType ?? '') && !/json/i.test(contentType ?? '')) {
    add(names, firstNamed(body));
  } else {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return null;
    }
    for (const request of Array.isArray(parsed) ? parsed.slice(0, MAX_NAMES) : [parsed]) {
      if (!request || typeof request !== 'object') continue;
      const { operationName, query } = request as { operationName?: unknown; query?: unknown };
      if (typeof query !== 'string' && typeof operationName !== 'string') continue;
      add(names, typeof operationName === 'string' && operationName ? operationName : typeof query === 'string' ? firstNamed(query) : null);
    }
  }
  return names.length ? names.join(', ') : null;
}

function add(names: string[], name: string | null): void {
  if (name && NAME.test(name)) names.push(name);
}

/** The name of the document's first named operation, by the reference parser; null when none or it does not parse. */
function firstNamed(query: string): string | null {
  graphql ??= require('graphql') as GraphqlModule;
  try {
    const document = graphql.parse(query, { noLocation: true });
    for (const definition of document.definitions) {
      if (definition.kind === graphql.Kind.OPERATION_DEFINITION && definition.name) return definition.name.value;
    }
  } catch {
    // not a document: no name
  }
  return null;
}
