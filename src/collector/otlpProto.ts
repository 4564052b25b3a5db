import protobuf from 'protobufjs';
import { OTLP_PROTO_SOURCES } from './otlpProtoSources';

export interface OtlpTypes {
  ExportTraceServiceRequest: protobuf.Type;
  ExportTraceServiceResponse: protobuf.Type;
  Status: protobuf.Type;
}

let types: OtlpTypes | null = null;

/**
 * The message types of the official OTLP definitions (vendored under `proto/`), parsed by protobufjs once,
 * on first use, so commands other than `probe collect` never pay for it.
 */
export function otlpTypes(): OtlpTypes {
  if (types) return types;
  const root = new protobuf.Root();
  // google/rpc/status.proto imports google/protobuf/any.proto, which protobufjs ships as a common type.
  const any = protobuf.common.get('google/protobuf/any.proto');
  if (any?.nested) root.addJSON(any.nested);
  for (const text of Object.values(OTLP_PROTO_SOURCES)) protobuf.parse(text, root);
  root.resolveAll();
  types = {
    ExportTraceServiceRequest: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'),
    ExportTraceServiceResponse: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse'),
    Status: root.lookupType('google.rpc.Status'),
  };
  return types;
}
