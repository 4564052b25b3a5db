import type { Mask } from '../mask/Mask';
import type { ResponseCaptureClass, ResponseCaptureInput } from '../response/ResponseCapture';
import { EventStreamCapture } from '../response/EventStreamCapture';
import { GraphqlCapture } from '../response/GraphqlCapture';
import { JsonCapture } from '../response/JsonCapture';
import { createLogger, type Logger } from '../util/logger';
import { userPartsRunner as userRunner } from './UserPartsRunner';
import type { Glob } from '../util/glob';

// The masker and the builder already catch a user's mask or capture class that throws (the value is stored
// masked, the row keeps no cards), silently: they are pure and hold no logger. These wrappers say it once
// per setting on Probe's logger, then throw so the catch there still decides what is stored.

const BUILTIN_CAPTURES = new Set<unknown>([JsonCapture, GraphqlCapture, EventStreamCapture]);
let logger: Logger | undefined;

function said(setting: string, message: string, error?: unknown): void {
  (logger ??= createLogger()).warnOnce(`user-part ${setting}`, `${setting}: ${message}`, error);
}

/** The user masks of the config loaded on the user parts' thread, by setting (that thread calls them). */
const localMasks = new Map<string, Mask>();

/** The user's mask of `setting`, as loaded on this thread (the user parts' thread asks it). */
export function localMask(setting: string): Mask | undefined {
  return localMasks.get(setting);
}

/**
 * A user's mask, reporting its first failure. It runs on the user parts' thread under a deadline
 * (UserPartsRunner.ts): one that throws or does not return in time throws here, and the masker stores the value as
 * `********`. The error itself is not printed: it may quote the secret.
 */
export function guardMask(setting: string, user: Mask): Mask {
  localMasks.set(setting, user);
  return {
    mask(value) {
      const runner = userRunner('mask');
      if (!runner) {
        try {
          return user.mask(value);
        } catch (error) {
          said(setting, `the mask threw${error instanceof Error ? ` a ${error.name}` : ''}; such values are stored as ********`);
          throw error;
        }
      }
      if (hung.has(setting)) throw new UserPartError();
      const answer = runner.call({ kind: 'mask', setting, value });
      if ('ok' in answer && answer.ok) return String(answer.value);
      const why = 'ok' in answer ? `the mask ${answer.reason}` : `the mask ${answer.message}`;
      if ('failed' in answer && answer.failed === 'timeout') hung.add(setting);
      said(setting, `${why}; such values are stored as ********${hung.has(setting) ? ' (it is not called again)' : ''}`);
      throw new UserPartError();
    },
  };
}

let patternsSeen = false;

/** Starts the user parts' thread when the loaded config holds a user mask or pattern: its first call seldom waits then. */
export function warmUserParts(): void {
  if (localMasks.size > 0) userRunner('mask')?.warm();
  else if (patternsSeen) userRunner('test')?.warm();
}

/** Settings whose user part ran past its deadline: not called again, their values masked whole. */
const hung = new Set<string>();

class UserPartError extends Error {}

/**
 * A user's name pattern (`mask.inputs`), tested on the user parts' thread under a deadline: a RegExp that
 * backtracks past it on an unlucky name counts that name as secret (its values are masked whole), said once.
 */
export function guardPattern(setting: string, pattern: RegExp): { test(name: string): boolean } {
  const flags = pattern.flags.replace(/[gy]/g, '');
  patternsSeen = true;
  return {
    test(name) {
      const runner = userRunner('test');
      if (!runner) {
        pattern.lastIndex = 0;
        return pattern.test(name);
      }
      const answer = runner.call({ kind: 'test', source: pattern.source, flags, name });
      if ('ok' in answer && answer.ok) return answer.value === true;
      said(
        setting,
        `${String(pattern)} ${'ok' in answer ? answer.reason : answer.message} on a name of ${name.length} characters; values under such names are stored as ********`,
      );
      return true;
    },
  };
}

/** Names whose `except` answer is kept (a route's requests share a name): past it the answers start over. */
const EXCEPT_ANSWERS = 1024;

/**
 * A user's `except` RegExp, tested like a name pattern on the user parts' thread under a deadline: it runs over the
 * name of every request the app answers, on the app's thread, where a RegExp that backtracks without end on an
 * unlucky name would hold the app for good. Answers are kept per name (bounded), so a route's requests cost one
 * exchange. One that runs past the deadline is said once and keeps nothing out from then on (the capture is stored).
 */
export function guardExcept(pattern: RegExp): Glob {
  const flags = pattern.flags.replace(/[gy]/g, '');
  const setting = `except ${String(pattern)}`;
  const answers = new Map<string, boolean>();
  patternsSeen = true;
  return {
    source: String(pattern),
    test(name) {
      const runner = userRunner('test');
      if (!runner) {
        pattern.lastIndex = 0;
        return pattern.test(name);
      }
      if (hung.has(setting)) return false;
      const kept = answers.get(name);
      if (kept !== undefined) return kept;
      const answer = runner.call({ kind: 'test', source: pattern.source, flags, name });
      if ('ok' in answer && answer.ok) {
        if (answers.size >= EXCEPT_ANSWERS) answers.clear();
        answers.set(name, answer.value === true);
        return answer.value === true;
      }
      if ('failed' in answer && answer.failed === 'timeout') hung.add(setting);
      said(
        setting,
        `${'ok' in answer ? answer.reason : answer.message} on a name of ${name.length} characters; ${hung.has(setting) ? 'it keeps nothing out from now on' : 'that capture is kept'}`,
      );
      return false;
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
