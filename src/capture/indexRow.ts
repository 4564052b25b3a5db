import type { Capture, IndexRow } from './types';

/** The index row of a capture: what lists show without loading whole captures. Pure. */
export function indexRowOf(capture: Capture): IndexRow {
  const counts: Record<string, number> = {};
  for (const [name, section] of Object.entries(capture.sections)) {
    counts[name] = Array.isArray(section) ? section.length : section == null ? 0 : 1;
  }
  const errors = capture.summary?.errors?.length ?? 0;
  const failed = capture.summary?.totals?.http_failed ?? 0;
  return {
    id: capture.id,
    parent_id: capture.parent_id,
    trace_id: capture.trace_id,
    linked_via: capture.linked_via,
    type: capture.type,
    name: capture.name,
    ...(serviceOf(capture) ? { service: serviceOf(capture)! } : {}),
    route: capture.sections.request?.route ?? null,
    status: capture.status,
    label: capture.label,
    duration: capture.duration,
    started_at: capture.started_at,
    ended_by: capture.ended_by,
    counts,
    // A failed test, or a command that exited with a non-zero code, is what an agent looks for first, even when
    // every call it made succeeded.
    has_errors:
      errors > 0 || failed > 0 || (capture.type === 'test' && capture.status === 'failed') || (capture.type === 'command' && /^[1-9]\d*$/.test(capture.status)),
    warnings: capture.summary?.warnings?.length ?? 0,
    errors: Math.max(errors, failed),
    tags: capture.tags,
    job_id: capture.job_id,
    ...(capture.meta?.sampling ? { sampling: capture.meta.sampling } : {}),
  };
}

const ID_PATTERN = /^[0-9A-Za-z_-]{8,64}$/;

/** Capture ids are the only user-supplied keys stores see: anything else (`../x`) is rejected. */
export function isValidCaptureId(id: unknown): id is string {
  return typeof id === 'string' && ID_PATTERN.test(id);
}

/** The service a capture names; older captures have it only in `meta`. */
export function serviceOf(capture: Capture): string | null {
  const name = capture.service ?? capture.meta?.service;
  return typeof name === 'string' && name ? name : null;
}
