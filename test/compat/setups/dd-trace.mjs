// ESM form: dd-trace's own ESM entry (loader hook + init from DD_* settings).
import 'dd-trace/initialize.mjs';
globalThis.__flush = () => new Promise((ok) => setTimeout(ok, 700));
