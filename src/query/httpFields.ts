/**
 * The fields of an HTTP row (docs/capture-format.md), listed so that a filter on `exception.message` is valid even in a
 * capture where no call failed, and so a bad field name can be answered with the names that exist.
 */
const HTTP_FIELDS: readonly string[] = [
  'method',
  'url',
  'host',
  'endpoint',
  'request_headers',
  'request_bytes',
  'request_payload',
  'request_formats',
  'request_body',
  'status',
  'response_headers',
  'response_bytes',
  'response_capture',
  'response_body',
  'response_body_base64',
  'duration',
  'timing',
  'timing.dns',
  'timing.connect',
  'timing.tls',
  'timing.wait',
  'timing.download',
  'timing.redirect',
  'timing.remote',
  'timing.protocol',
  'timing.redirects',
  'grpc',
  'grpc.service',
  'grpc.method',
  'grpc_status',
  'grpc_status.code',
  'grpc_status.name',
  'grpc_status.message',
  'failed',
  'exception',
  'exception.class',
  'exception.message',
  'exception.code',
  'exception.file',
  'exception.previous',
  'pool',
  'fake',
  'cache',
  'time',
  'origin',
  'origin.file',
  'origin.line',
  'origin.chain',
  'truncated',
];

/** Types of HTTP row fields that may be null in every row of a capture, so values still coerce right. */
export const HTTP_FIELD_TYPES: Readonly<Record<string, FieldType>> = {
  status: 'number',
  duration: 'number',
  response_bytes: 'number',
  request_bytes: 'number',
  pool: 'number',
  time: 'number',
  failed: 'boolean',
  fake: 'boolean',
  truncated: 'boolean',
  'timing.dns': 'number',
  'timing.connect': 'number',
  'timing.tls': 'number',
  'timing.wait': 'number',
  'timing.download': 'number',
  'timing.redirect': 'number',
  'timing.redirects': 'number',
  'origin.line': 'number',
  'grpc_status.code': 'number',
};

export type FieldType = 'number' | 'boolean' | 'string' | 'object' | 'unknown';

/** Fields known for a section before looking at its rows. */
export function knownFieldsOf(section: string): readonly string[] {
  return section === 'http' ? HTTP_FIELDS : [];
}
