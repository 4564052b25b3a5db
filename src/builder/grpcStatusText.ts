/**
 * A gRPC status as every view states it, by number and name: `gRPC 5 NOT_FOUND` (the summary's errors, the CLI's
 * tables, the dashboard). Apart from grpcStatus.ts so that the dashboard's bundle takes it without Node's types.
 */
export function grpcStatusText(status: { code: number; name: string }): string {
  return `gRPC ${status.code} ${status.name}`;
}
