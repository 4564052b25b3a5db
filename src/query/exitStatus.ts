import { constants } from 'node:os';

/** Signal numbers to names (`15` → `SIGTERM`), from the running platform's own table. */
const SIGNALS = new Map<number, string>(Object.entries(constants.signals).map(([name, number]) => [number, name]));

/**
 * A command capture's status as an exit code reads: `exit 0`, `exit 1`, and a code past 128 with the signal that
 * a shell reports that way (`exit 143 (SIGTERM)`), so it is not read as an HTTP status. Other statuses (a
 * running process's `running`, a window's `window`) are returned as they are.
 */
export function exitStatusText(status: string): string {
  if (!/^\d{1,3}$/.test(status)) return status;
  const code = Number(status);
  const signal = code > 128 ? SIGNALS.get(code - 128) : undefined;
  return signal ? `exit ${code} (${signal})` : `exit ${code}`;
}
