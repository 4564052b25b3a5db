import type { ContextManager } from '@opentelemetry/api';
import type { OtelApi } from '../appApi';
import { apiRegistry } from './globals';
import { patchMethod } from '../../util/patches';

/**
 * Probe registers a context manager at preload only so units see their calls; the app's own setup (an SDK's
 * `register()`, Sentry's scope-aware manager) must win when it comes later. The API refuses a second
 * registration, so Probe steps aside first: it releases its own manager and lets the app's call go through.
 * `context` is the app's copy of the API (see appApi.ts): the one Probe registered through and the app calls.
 */
export function yieldContextManagerTo(own: ContextManager, context: OtelApi['context']): void {
  const api = context as unknown as { setGlobalContextManager(manager: ContextManager): boolean };
  const why =
    "the API refuses a second global context manager (registerGlobal's duplicate check, https://github.com/open-telemetry/opentelemetry-js/blob/main/api/src/internal/global-utils.ts): Probe's, registered at preload, would switch off the app's";
  patchMethod(
    api,
    'setGlobalContextManager',
    '@opentelemetry/api context.setGlobalContextManager',
    why,
    (original) =>
      function (this: unknown, manager: ContextManager) {
        try {
          if (manager !== own && apiRegistry()?.context === own) context.disable();
        } catch {
          // the app's call below reports its own outcome
        }
        return original.call(this, manager);
      },
  );
}
