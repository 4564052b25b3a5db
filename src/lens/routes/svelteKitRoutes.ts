import { patchMethod } from '../../util/patches';

/** What SvelteKit keeps for a request while it runs the app's hooks (its request store). */
interface RequestStore {
  event?: { route?: { id?: unknown } | null; isSubRequest?: unknown } | null;
}

type WithRequestStore = (this: unknown, store: RequestStore | null, fn: () => unknown) => unknown;

/**
 * SvelteKit answers every request through one handler (adapter-node's, or Vite's middleware under `vite dev`), so
 * the server's route says nothing. SvelteKit's own route is its route id (`/items/[id]`), the one it reports as
 * `event.route.id` and as `http.route` on its own spans. It hands the request's event, route matched, to
 * `with_request_store` of `@sveltejs/kit/internal/server` before it runs the app's `handle` hook; that module is
 * the one SvelteKit keeps out of every bundle (the build and Vite's dev server import the installed file), so the
 * event is read there. A request no route matched (a 404) has `route.id` null: no route. A request SvelteKit
 * makes to itself (`event.fetch` of its own route) is not the request being answered: left out.
 * https://github.com/sveltejs/kit/blob/main/packages/kit/src/runtime/server/respond.js
 */
export function patchSvelteKitServer(
  exports: { with_request_store?: unknown },
  noteRoute: (request: object | undefined, route: string | (() => unknown)) => void,
): (() => void) | null {
  if (typeof exports?.with_request_store !== 'function') return null;
  return patchMethod(
    exports as { with_request_store: WithRequestStore },
    'with_request_store',
    '@sveltejs/kit/internal/server with_request_store',
    "reads SvelteKit's route id off the request event it hands the app's handle hook; SvelteKit publishes it only on that event and on spans it makes when its tracing is turned on (https://github.com/sveltejs/kit/blob/main/packages/kit/src/runtime/server/respond.js)",
    (original) =>
      function with_request_store(this: unknown, store: RequestStore | null) {
        try {
          const event = store?.event;
          const id = event?.route?.id;
          if (event && event.isSubRequest !== true && typeof id === 'string' && id) noteRoute(undefined, id);
        } catch {
          // the request goes on unnamed
        }
        return original.apply(this, arguments as never);
      },
  );
}
