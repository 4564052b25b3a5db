import { terminalText } from './terminalText';

/**
 * Probe's one logger. Probe's own faults are counted and reported once per kind, never thrown into the app;
 * `PROBE_DEBUG=1` prints every occurrence with its stack.
 */
export interface Logger {
  warn(message: string, error?: unknown): void;
  debug(message: string, error?: unknown): void;
  /** Warns the first time `key` is seen, debug-logs afterwards. */
  warnOnce(key: string, message: string, error?: unknown): void;
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.message}${process.env.PROBE_DEBUG ? `\n${error.stack}` : ''}`;
  return error === undefined ? '' : String(error);
}

export function createLogger(write: (line: string) => void = (line) => process.stderr.write(line + '\n')): Logger {
  const debugOn = Boolean(process.env.PROBE_DEBUG) && process.env.PROBE_DEBUG !== '0';
  const seen = new Set<string>();
  const emit = (message: string, error?: unknown) => {
    const detail = describe(error);
    try {
      write(terminalText(`[probe] ${message}${detail ? `: ${detail}` : ''}`, '\n'));
    } catch {
      // stderr closed: nothing left to tell.
    }
  };
  return {
    warn: emit,
    debug(message, error) {
      if (debugOn) emit(message, error);
    },
    warnOnce(key, message, error) {
      if (seen.has(key)) {
        if (debugOn) emit(message, error);
        return;
      }
      seen.add(key);
      emit(message, error);
    },
  };
}
