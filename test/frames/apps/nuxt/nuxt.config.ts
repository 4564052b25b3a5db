// A Nuxt 3 app (pages and server routes) run under `nuxi dev` and `nuxi build` with the framework's defaults.
export default defineNuxtConfig({ devtools: { enabled: false }, telemetry: false });
