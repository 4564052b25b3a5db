/**
 * The `probe.*` span attributes, in one place for the runtime that sets them and the collector that reads them.
 * Beyond the OpenTelemetry semantic conventions, when a sender adds them (Probe's own processor may, on spans it
 * exports elsewhere; any SDK can), each fills a field of the HTTP row or capture the conventions have no place for.
 * All are optional; a value of the wrong type is ignored.
 */
export const PROBE_ATTRIBUTES = {
  /** string: `job` or `command`, on the root span of `job()` / `command()`: that span starts a unit of its own. */
  unit: 'probe.unit',
  /** string: a unit's status set by `job()` / `command()` (`done`, `failed`, an exit code). */
  status: 'probe.status',
  /** string: app file of the call, relative to the app root (`origin.file`). */
  originFile: 'probe.origin.file',
  /** int: line of that file (`origin.line`). */
  originLine: 'probe.origin.line',
  /** string[]: up to 5 `file:line function` frames (`origin.chain`). */
  originChain: 'probe.origin.chain',
  /** int: the `pool()` number of the call within its capture (`pool`). */
  pool: 'probe.pool',
  /** bool: a fake (nock, msw, MockAgent) answered (`fake`; timing is then null). */
  fake: 'probe.fake',
  /** int: redirects followed by one call (`timing.redirects`). */
  redirects: 'probe.redirects',
  /** string: the URL the app asked for when the span is the last redirect hop (`url`). */
  url: 'probe.url',
  /** double, ms: phase timings (`timing.dns` ...). */
  timingPrefix: 'probe.timing.',
  /** string: the request body as sent (`request_payload`/`request_body`, masked by the builder). */
  requestBody: 'probe.request.body',
  /** string: the response body as received, decoded (`response_capture`/`response_body`). */
  responseBody: 'probe.response.body',
  /** string: the capture label (`label`), on a unit's root span. */
  label: 'probe.label',
  /** string[]: capture tags (`tags`), on a unit's root span. */
  tags: 'probe.tags',
  /** string: the id given to `job(name, fn, {id})` (`job_id`), on a CONSUMER root span. */
  jobId: 'probe.job.id',
  /**
   * string: on a `job` root span, the capture that queued the job in this same process (a BullMQ job added inside
   * a request): the job's `parent_id` when no live unit encloses it.
   */
  parentId: 'probe.parent.id',
} as const;

/** The phases `probe.timing.<phase>` may carry. */
export const TIMING_PHASES = ['dns', 'connect', 'tls', 'wait', 'download', 'redirect'] as const;
