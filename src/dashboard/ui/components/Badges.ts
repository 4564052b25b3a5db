import { html } from '../html';
import { captureStatusTone, statusTone } from '../format';
import type { HttpRow } from '../../../capture/types';
import { grpcStatusText } from '../../../builder/grpcStatusText';

export function MethodBadge({ method }: { method: string }) {
  return html`<span class=${`method method-${method.toLowerCase()}`}>${method}</span>`;
}

/** An HTTP status, coloured by class; `failed` when no response arrived. */
export function StatusBadge({ status }: { status: number | null }) {
  return html`<span class=${`status tone-${statusTone(status)}`}>${status === null ? 'failed' : String(status)}</span>`;
}

/** A gRPC call's own status beside its HTTP one, by number and name; its message as the title. */
export function GrpcStatusBadge({ status }: { status: NonNullable<HttpRow['grpc_status']> }) {
  return html`<span class=${`status grpc-status tone-${status.code === 0 ? 'ok' : 'error'}`} data-testid="grpc-status" title=${status.message ?? ''}>${grpcStatusText(status)}</span>`;
}

export function CaptureStatus({ type, status }: { type: string; status: string }) {
  return html`<span class=${`status tone-${captureStatusTone(type, status)}`}>${status}</span>`;
}

export function TypeBadge({ type }: { type: string }) {
  return html`<span class=${`type type-${type}`}>${type}</span>`;
}
