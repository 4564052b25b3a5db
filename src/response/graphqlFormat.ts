import { MASKED } from '../mask/FullMask';

type GraphqlModule = typeof import('graphql');
let graphql: GraphqlModule | null = null;

/**
 * Pretty-prints a GraphQL document with the reference parser, masking string literals passed to arguments
 * (or input-object fields) whose names are secret. A document that does not parse is returned with every
 * string literal masked, since we cannot tell which argument it belongs to.
 */
export function formatGraphql(query: string, isSecret: (name: string) => boolean): string {
  graphql ??= require('graphql') as GraphqlModule;
  const { parse, print, visit, Kind } = graphql;
  try {
    const document = parse(query, { noLocation: true });
    const masked = visit(document, {
      Argument(node) {
        return maskValueNode(node, isSecret, Kind);
      },
      ObjectField(node) {
        return maskValueNode(node, isSecret, Kind);
      },
    });
    return print(masked);
  } catch {
    return maskStringLiterals(query);
  }
}

/**
 * Every string literal of a document that does not parse, masked: one pass, each literal read once (a regular
 * expression retried at each quote of an unclosed literal, `\"\"\"…`, is quadratic). An unclosed one is
 * masked to the end.
 */
export function maskStringLiterals(query: string): string {
  let out = '';
  let copied = 0;
  for (let i = 0; i < query.length; i++) {
    if (query.charCodeAt(i) !== 0x22) continue;
    let end = i + 1;
    while (end < query.length && query.charCodeAt(end) !== 0x22) end += query.charCodeAt(end) === 0x5c ? 2 : 1;
    out += `${query.slice(copied, i)}"${MASKED}"`;
    copied = Math.min(end + 1, query.length);
    i = end;
  }
  return copied === 0 ? query : out + query.slice(copied);
}

function maskValueNode<T extends { name: { value: string }; value: { kind: string } }>(
  node: T,
  isSecret: (name: string) => boolean,
  kind: GraphqlModule['Kind'],
): T | undefined {
  if (node.value.kind !== kind.STRING || !isSecret(node.name.value)) return undefined;
  return { ...node, value: { kind: kind.STRING, value: MASKED } };
}
