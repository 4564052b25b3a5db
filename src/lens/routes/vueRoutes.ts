import { patchMethod } from '../../util/patches';

type NoteRoute = (request: object | undefined, route: string | (() => unknown), fallback?: boolean) => void;

/** What vue-router's `install` leaves on a Vue app: `app.config.globalProperties.$router`. */
interface VueApp {
  config?: { globalProperties?: { $router?: { currentRoute?: { value?: { matched?: Array<{ path?: unknown }> } } } } };
}

/** The server renderer's entries that take the app to render first (a string or a stream of it). */
const RENDERS = ['renderToString', 'renderToNodeStream', 'pipeToNodeWritable', 'renderToWebStream', 'pipeToWebWritable', 'renderToSimpleStream'] as const;

/**
 * A Vue app rendered on the server (Nuxt's page renderer, any Vue SSR setup with vue-router) is one request the
 * server's router hands to one catch-all (Nuxt's `/**`): the page the request asked for is the route the app's own
 * router resolved for it. Vue's server renderer is handed the request's app, and vue-router installs itself on the
 * app as `$router`; the route is the path of the deepest record it matched (`router.currentRoute.value.matched`),
 * as the app's routes write it: Nuxt's `pages/users/[id].vue` is `/users/:id()`, the string `useRoute().matched`
 * gives the page and Nuxt's route table holds. It is read when the request ends (a navigation during rendering,
 * a redirect, counts). No match (a 404 page) is no route. A route the server's router already told (an API
 * route whose error page is rendered) stays. https://github.com/vuejs/core/tree/main/packages/server-renderer
 */
export function patchVueServerRenderer(exports: Record<string, unknown>, noteRoute: NoteRoute): (() => void) | null {
  const undos: Array<() => void> = [];
  for (const name of RENDERS) {
    const undo = patchMethod(
      exports as Record<string, (...args: unknown[]) => unknown>,
      name,
      `@vue/server-renderer ${name}`,
      "reads the route the app's vue-router resolved for the request it renders; Vue publishes the rendered app nowhere else (https://github.com/vuejs/core/blob/main/packages/server-renderer/src/renderToString.ts)",
      (original) =>
        function render(this: unknown, input: unknown) {
          try {
            const reader = routerRoute(input as VueApp);
            if (reader) noteRoute(undefined, reader, true);
          } catch {
            // the request goes on unnamed
          }
          return original.apply(this, arguments as never);
        },
    );
    if (undo) undos.push(undo);
  }
  return undos.length > 0 ? () => undos.reverse().forEach((undo) => undo()) : null;
}

/** A reader of the deepest matched route's path of the app's vue-router, or null when the app has no router. */
function routerRoute(app: VueApp | null | undefined): (() => string | null) | null {
  const router = app?.config?.globalProperties?.$router;
  if (!router?.currentRoute) return null;
  return () => {
    const matched = router.currentRoute?.value?.matched;
    const deepest = Array.isArray(matched) ? matched[matched.length - 1] : undefined;
    return typeof deepest?.path === 'string' && deepest.path ? deepest.path : null;
  };
}
