import type { Mask } from '../mask/Mask';
import type { ResponseCaptureClass, ResponseCaptureInput } from '../response/ResponseCapture';
import { EventStreamCapture } from '../response/EventStreamCapture';
import { GraphqlCapture } from '../response/GraphqlCapture';
import { JsonCapture } from '../response/JsonCapture';
import { createLogger, type Logger } from '../util/logger';

// The masker and the builder already catch a user's mask or capture class that throws (the value is stored
// masked, the row keeps no cards), silently: they are pure and hold no logger. These wrappers say it once
// per setting on Probe's logger, then rethrow so the catch there still decides what is stored.

const BUILTIN_CAPTURES = new Set<unknown>([JsonCapture, GraphqlCapture, EventStreamCapture]);
let logger: Logger | undefined;

function said(setting: string, message: string, error?: unknown): void {
  (logger ??= createLogger()).warnOnce(`user-part ${setting}`, `${setting}: ${message}`, error);
}

/** A user's mask, reporting its first failure. The error itself is not printed: it may quote the secret. */
export function guardMask(setting: string, user: Mask): Mask {
  return {
    mask(value) {
      try {
        return user.mask(value);
      } catch (error) {
        said(setting, `the mask threw${error instanceof Error ? ` a ${error.name}` : ''}; such values are stored as ********`);
        throw error;
      }
    },
  };
}

/** A user's capture class, reporting its first failure; the built-in classes are returned as they are. */
export function guardCapture(setting: string, user: ResponseCaptureClass): ResponseCaptureClass {
  if (BUILTIN_CAPTURES.has(user)) return user;
  const run =
    typeof user.capture === 'function' ? (input: ResponseCaptureInput) => user.capture!(input) : (input: ResponseCaptureInput) => new user().capture(input);
  const guarded = class {
    static capture(input: ResponseCaptureInput) {
      try {
        return run(input);
      } catch (error) {
        said(setting, `${user.name}.capture() threw; such responses are stored without its cards`, error);
        throw error;
      }
    }
  };
  // Records name the class the user gave.
  Object.defineProperty(guarded, 'name', { value: user.name });
  return guarded as unknown as ResponseCaptureClass;
}
