import type { Masker } from '../mask/Masker';
import { endpointTarget, parseUrl } from './endpoint';
import { maskCredentials } from '../mask/credentialValues';
import { maskCardNumbers } from '../mask/cardNumbers';

/** What a row takes from its URL: the masked URL, the host, and the endpoint without its method. */
export interface UrlFacts {
  url: string;
  host: string;
  /**
   * `<scheme>://<host>/<path>` with ids folded, or the URL without its query when it does not parse; credentials
   * in the path masked (`/bot<token>/`, Slack hooks).
   */
  target: string;
}

/** URLs remembered per masker; a map past this size starts over (URLs with unique queries never repeat). */
const MAX_URLS = 1000;
const cache = new WeakMap<Masker, Map<string, UrlFacts>>();

/**
 * The URL facts of a row, parsed and masked once per distinct URL: a server calls the same few URLs over
 * and over, and parsing, masking and folding each one again was a tenth of building a row.
 */
export function urlFacts(raw: string, masker: Masker): UrlFacts {
  let known = cache.get(masker);
  if (!known) cache.set(masker, (known = new Map()));
  let facts = known.get(raw);
  if (facts) return facts;
  const parsed = parseUrl(raw);
  facts = { url: masker.url(raw), host: parsed?.host ?? '', target: maskCardNumbers(maskCredentials(endpointTarget(parsed, raw))) };
  if (known.size >= MAX_URLS) known.clear();
  known.set(raw, facts);
  return facts;
}
