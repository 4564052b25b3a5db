import { z } from 'zod';
import { OPERATORS } from '../query/where';
import { CAPTURE_TYPES, LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from '../query/list';
import { ROWS_DEFAULT_LIMIT, ROWS_MAX_LIMIT } from '../query/rows';
import { SHOW_DEFAULT_LIMIT, SHOW_MAX_LIMIT } from '../query/show';
import { MAX_INPUT_CHARS, MAX_INPUT_ITEMS } from '../query/inputs';
import { DEFAULT_MAX_TOKENS, MAX_MAX_TOKENS, MIN_MAX_TOKENS } from '../query/budget';

/**
 * Input schemas of the three tools. They accept what agents commonly send besides the documented form
 * (a number or boolean where a string is asked for, `"10"` for 10, `"a,b"` for a list): turning an agent
 * away for quoting a number costs it a round trip and teaches it nothing.
 */

/** A string input of at most `max` characters; the error names the input and never echoes it. */
const text = (input: string, max = MAX_INPUT_CHARS) => z.string().max(max, { error: `${input} must be at most ${max} characters` });

const names = (what: string, input: string) =>
  z
    .union([z.array(text(input)).max(MAX_INPUT_ITEMS, { error: `${input} must list at most ${MAX_INPUT_ITEMS} names` }), text(input, MAX_INPUT_CHARS * 10)])
    .transform((value) => (Array.isArray(value) ? value : splitNames(value)).map((name) => name.trim()).filter(Boolean))
    .describe(what);

/** `"a,b"` or a JSON array sent as a string (`'["a","b"]'`, what some clients send for an array|string input). */
function splitNames(text: string): string[] {
  if (text.trim().startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (Array.isArray(parsed)) return parsed.map(String);
    } catch {
      // not JSON: fall through to the comma list
    }
  }
  return text.split(',');
}

/**
 * An object input that refuses keys it does not know, naming them and the valid ones: an input dropped in silence
 * (a misspelt filter) would answer something other than what was asked.
 */
export function strictInput<Shape extends z.ZodRawShape>(shape: Shape): z.ZodObject<Shape, z.core.$strict> {
  const valid = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown input ${issue.keys.map((key) => JSON.stringify(clipKey(key))).join(', ')}. Valid inputs: ${valid}`
        : undefined,
  });
}

function clipKey(key: string): string {
  return key.length > 60 ? `${key.slice(0, 60)}…` : key;
}

const count = (min: number, max: number, fallback: number, what: string) =>
  z.coerce
    .number({ error: `limit must be a whole number from ${min} to ${max}` })
    .int({ error: `limit must be a whole number from ${min} to ${max}` })
    .min(min, { error: `limit must be at least ${min}` })
    .max(max, { error: `limit must be at most ${max}` })
    .optional()
    .describe(`${what} (default ${fallback}, max ${max})`);

const maxTokens = z.coerce
  .number({ error: `max_tokens must be a whole number from ${MIN_MAX_TOKENS} to ${MAX_MAX_TOKENS}` })
  .int({ error: `max_tokens must be a whole number from ${MIN_MAX_TOKENS} to ${MAX_MAX_TOKENS}` })
  .min(MIN_MAX_TOKENS, { error: `max_tokens must be at least ${MIN_MAX_TOKENS}` })
  .max(MAX_MAX_TOKENS, { error: `max_tokens must be at most ${MAX_MAX_TOKENS}` })
  .optional()
  .describe(`Answer size cap in tokens (default ${DEFAULT_MAX_TOKENS}); cuts are listed in "omitted"`);

const captureId = text('id', 100).describe('Capture id, as returned by probe-list or probe-show. Default: the newest capture.');

const since = text('since', 40).optional().describe('Only captures started within this duration: "30s", "15m", "2h", "1d"');
const captureType = z
  .enum(CAPTURE_TYPES as ['request', 'job', 'command', 'test'], { error: `type must be one of ${CAPTURE_TYPES.join(', ')}` })
  .optional()
  .describe(`Capture type: ${CAPTURE_TYPES.join(', ')}`);

export const rowsInput = {
  section: z
    .string({ error: 'section must be a section name such as "http" (outgoing HTTP calls) or "request" (the incoming request)' })
    .max(200, { error: 'section must be at most 200 characters' })
    .min(1, { error: 'section must not be empty: "http" (outgoing HTTP calls) or "request" (the incoming request)' })
    .optional()
    .describe('Section to read (default "http": outgoing calls; "request": the incoming request; or any section probe-show lists)'),
  where: z
    .array(
      strictInput({
        field: text('where field', 200).describe('Field name, dotted for nested values: "status", "exception.message", "timing.wait"'),
        op: z
          .enum(OPERATORS, { error: `op must be one of ${OPERATORS.join(' ')}` })
          .describe('Comparison: = != > >= < <= contains starts_with (contains/starts_with ignore case)'),
        value: z
          .union([text('where value'), z.number(), z.boolean(), z.null()])
          .transform((value) => String(value))
          .describe('Value as a string, coerced to the field type: "500", "true", "null", "api.example.com"'),
      }),
    )
    .max(MAX_INPUT_ITEMS, { error: `where must hold at most ${MAX_INPUT_ITEMS} clauses` })
    .optional()
    .describe('Filters; a row must pass all of them'),
  sort: text('sort', 200)
    .optional()
    .describe('Field to sort by, dotted allowed ("duration", "timing.wait"); rows without a value come last. With group_by: a group field ("p95")'),
  dir: z.enum(['asc', 'desc'], { error: 'dir must be "asc" or "desc"' }).optional().describe('Sort direction (default asc)'),
  limit: count(1, ROWS_MAX_LIMIT, ROWS_DEFAULT_LIMIT, 'Rows returned'),
  fields: names(
    'Fields each row holds, exactly, dotted allowed: ["row", "url", "status", "duration", "exception.message"]; "row" is the row index (for probe-show). Default: every field plus "row", long values clipped',
    'fields',
  ).optional(),
  group_by: text('group_by', 200)
    .min(1)
    .optional()
    .describe('One line per group instead of rows: endpoint, host, status, method, route, capture_name or any row field; default limit 10, dir desc'),
  id: captureId.optional().describe('Capture id, or "*" for every capture (newest first). Default: the newest capture that has rows in the section'),
  since: since.describe('Read every capture started within this duration, newest first: "30s", "15m", "2h", "1d"; rows then carry capture_id and capture_name'),
  type: captureType.describe(`Only captures of this type: ${CAPTURE_TYPES.join(', ')}`),
  name: text('name').min(1).optional().describe('Only captures whose name matches this glob, case ignored: "GET /orders/*"'),
  max_tokens: maxTokens,
};

export const listInput = {
  has: names('Only captures with rows in all these sections, e.g. ["http"]', 'has').optional(),
  has_errors: z
    .union([z.boolean(), z.enum(['true', 'false'])])
    .transform((value) => value === true || value === 'true')
    .optional()
    .describe('true: only captures with a failed call or an error, and failed tests; false: only those without'),
  since,
  type: captureType.describe('request (incoming HTTP request), job, command (a script run) or test (one test case)'),
  route: text('route').optional().describe('Only captures of this route template, as listed in "route": "/api/users/:id"'),
  service: text('service').optional().describe('Only this service'),
  group_by: z
    .enum(['route'], { error: 'group_by must be "route"' })
    .optional()
    .describe('"route": also count every matching capture per route template (captures, with_errors, avg/max duration, latest id)'),
  has_findings: z
    .union([z.boolean(), z.enum(['true', 'false'])])
    .transform((value) => value === true || value === 'true')
    .optional()
    .describe('true: only captures with findings'),
  limit: count(1, LIST_MAX_LIMIT, LIST_DEFAULT_LIMIT, 'Captures returned'),
  baselines: z
    .union([z.boolean(), z.enum(['true', 'false'])])
    .transform((value) => value === true || value === 'true')
    .optional()
    .describe('true: also list saved baselines (for compare_to "baseline:<name>")'),
  max_tokens: maxTokens,
};

export const showInput = {
  id: captureId.optional(),
  flow: z
    .union([z.boolean(), z.enum(['true', 'false'])])
    .transform((value) => value === true || value === 'true')
    .optional()
    .describe('true: its flow across services'),
  sections: names('Sections to include, e.g. ["http"]. Default: every section of the capture', 'sections').optional(),
  limit: count(0, SHOW_MAX_LIMIT, SHOW_DEFAULT_LIMIT, 'Rows shown per section'),
  section: text('section', 200).min(1).optional().describe('With row: the section of that row (default "http")'),
  row: z.coerce
    .number({ error: 'row must be a whole number: the "row" index probe-rows returns (0 is the first row)' })
    .int({ error: 'row must be a whole number: the "row" index probe-rows returns (0 is the first row)' })
    .min(0, { error: 'row must be 0 or more (0 is the first row)' })
    .optional()
    .describe('Index of one row to return whole (as "row" in probe-rows and the dashboard; 0 is the first)'),
  compare_to: text('compare_to', 200).min(1).optional().describe('Also diff from "previous" (same name, run before), "baseline:<name>" or a capture id'),
  all: z
    .union([z.boolean(), z.enum(['true', 'false'])])
    .transform((value) => value === true || value === 'true')
    .optional()
    .describe('true: also findings below the cost floor'),
  max_tokens: maxTokens,
};
