import type { BodyInput } from '../builder/input';

/** The bytes a body keeps (its chunks' lengths). Its own file: unitMessage and unitParts both count them, and
 * unitMessage already imports unitParts' types (one in the other would be a cycle). */
export function bodyLength(body: BodyInput | null): number {
  let length = 0;
  if (body) for (const chunk of body.chunks) length += chunk.length;
  return length;
}
