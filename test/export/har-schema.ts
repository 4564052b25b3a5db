import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
// har-schema: the HAR 1.2 spec as JSON schemas (draft-06), the ones har-validator compiles.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const draft06 = require('ajv/dist/refs/json-schema-draft-06.json') as object;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const schemas = require('har-schema') as Record<string, { $id: string }>;

let validate: ValidateFunction | null = null;

/** Validates a HAR document against har-schema with Ajv; returns the errors as readable lines ([] when valid). */
export function harErrors(har: unknown): string[] {
  if (!validate) {
    // strict: false, since har-schema carries keywords of its own (`optional`, `min`) that Ajv would refuse.
    const ajv = new Ajv({ allErrors: true, strict: false });
    ajv.addMetaSchema(draft06);
    addFormats(ajv);
    for (const [name, schema] of Object.entries(schemas)) if (name !== 'har') ajv.addSchema(schema);
    validate = ajv.compile(schemas.har!);
  }
  if (validate(har)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
}
