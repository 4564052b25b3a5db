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
    return query.replace(/"(?:[^"\\]|\\.)*"/g, `"${MASKED}"`);
  }
}

function maskValueNode<T extends { name: { value: string }; value: { kind: string } }>(
  node: T,
  isSecret: (name: string) => boolean,
  kind: GraphqlModule['Kind'],
): T | undefined {
  if (node.value.kind !== kind.STRING || !isSecret(node.name.value)) return undefined;
  return { ...node, value: { kind: kind.STRING, value: MASKED } };
}
