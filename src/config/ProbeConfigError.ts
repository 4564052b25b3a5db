/** A configuration problem, always naming the setting at fault. Probe refuses to start on one. */
export class ProbeConfigError extends Error {
  readonly code = 'PROBE_ERR_CONFIG';
  constructor(
    readonly setting: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${setting}: ${message}`, options);
    this.name = 'ProbeConfigError';
  }
}
